import type { TokenRecord } from '../../domain/apps.js';
import type { DeviceApproval, DeviceAuthorizationRecord, DevicePoll } from '../../domain/device-authorizations.js';
import { UniqueViolation } from '../../domain/errors.js';
import type { RefreshTokenRecord } from '../../domain/refresh-tokens.js';
import { tokenRow } from '../apps/rows.js';
import { Queries } from '../queries.js';
import { refreshTokenRow } from '../refresh-tokens/rows.js';
import { isRowId, isRowKey, type Row, uniqueField } from '../rows.js';
import { deviceAuthorizationRow, toDeviceAuthorization } from './rows.js';

/** Seconds a slow_down adds to a device's poll interval (RFC 8628 3.5). */
const SLOW_DOWN_SECONDS = 5;

const UNKNOWN: DevicePoll = { outcome: 'unknown' };

/**
 * DeviceAuthorizationStore (store.ts) in knex: store.deviceAuthorizations in KnexStore (src/store/knex-store.ts), on
 * both databases, with no dialect store overriding it (a device polls every few seconds, far from
 * a hot path). Each write that decides something is atomic on both: a decision and a redemption
 * are one conditional UPDATE (on PostgreSQL the second of two concurrent ones waits for the
 * first's row lock, then finds its condition false; on SQLite the writes are serialized), and a
 * poll reads its row `for update` before counting itself, so concurrent polls are counted one
 * after another.
 */
export class DeviceAuthorizationsQueries extends Queries {
  async createDeviceAuthorization(record: DeviceAuthorizationRecord): Promise<void> {
    try {
      await this.knex('device_authorizations').insert(deviceAuthorizationRow(record));
    } catch (err) {
      // Only a taken user code is the caller's to handle (it draws another); a taken device code
      // (32 random bytes) would be a bug, and is thrown as it is.
      if (uniqueField(err) === 'userCode') throw new UniqueViolation('userCode');
      throw err;
    }
  }

  async getDeviceAuthorizationByUserCode(userCodeHash: string): Promise<DeviceAuthorizationRecord | undefined> {
    if (!isRowKey(userCodeHash)) return undefined;
    const row = (await this.knex('device_authorizations').where({ user_code_hash: userCodeHash }).first()) as Row | undefined;
    return row && toDeviceAuthorization(row);
  }

  async decideDeviceAuthorization(userCodeHash: string, now: number, decidedBy: number, approval: DeviceApproval | null): Promise<boolean> {
    if (!isRowKey(userCodeHash) || !isRowId(decidedBy)) return false;
    const decided = await this.knex('device_authorizations')
      .where({ user_code_hash: userCodeHash })
      .whereNull('decision')
      .where('expires_at', '>', now)
      .update({
        decision: approval ? 'approved' : 'denied',
        user_id: decidedBy,
        auth_time: approval ? approval.authTime : null,
        amr: approval ? approval.amr.join(' ') : null,
        decided_at: now,
      });
    return decided === 1;
  }

  async pollDeviceAuthorization(deviceCodeHash: string, now: number): Promise<DevicePoll> {
    if (!isRowKey(deviceCodeHash)) return UNKNOWN;
    return this.knex.transaction(async (trx) => {
      // The row lock orders concurrent polls on PostgreSQL: each reads what the one before wrote.
      // SQLite leaves `for update` out; its one connection runs the transactions one at a time.
      const row = (await trx('device_authorizations').where({ device_code_hash: deviceCodeHash }).forUpdate().first()) as Row | undefined;
      if (!row) return UNKNOWN;
      const before = toDeviceAuthorization(row);
      const slowDown = before.lastPolledAt !== null && now - before.lastPolledAt < before.intervalSeconds * 1000;
      const intervalSeconds = before.intervalSeconds + (slowDown ? SLOW_DOWN_SECONDS : 0);
      await trx('device_authorizations').where({ device_code_hash: deviceCodeHash }).update({ last_polled_at: now, interval_seconds: intervalSeconds });
      const record: DeviceAuthorizationRecord = { ...before, lastPolledAt: now, intervalSeconds };
      return slowDown ? { outcome: 'slow_down', record } : { outcome: 'polled', record };
    });
  }

  async redeemDeviceAuthorization(deviceCodeHash: string, now: number, token: TokenRecord, refresh: RefreshTokenRecord | null): Promise<boolean> {
    if (!isRowKey(deviceCodeHash)) return false;
    return this.knex.transaction(async (trx) => {
      const claimed = await trx('device_authorizations')
        .where({ device_code_hash: deviceCodeHash, decision: 'approved' })
        .whereNull('used_at')
        .where('expires_at', '>', now)
        .update({ used_at: now });
      if (claimed !== 1) return false;
      await trx('access_tokens').insert(tokenRow(token));
      if (refresh) await trx('refresh_tokens').insert(refreshTokenRow(refresh));
      return true;
    });
  }
}
