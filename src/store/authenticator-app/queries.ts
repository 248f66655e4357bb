import type { Knex } from 'knex';
import type { TotpRecord } from '../../domain/authenticator-app.js';
import { toTotp } from './rows.js';
import { Queries } from '../queries.js';
import { type Row, isRowId, isRowKey, num } from '../rows.js';
import type { Ended, Ends } from '../../domain/security-events.js';
import { endArtifacts } from '../security-events/ends.js';

/** AuthenticatorAppStore (store.ts) in knex: store.authenticatorApp in KnexStore (src/store/knex-store.ts), on both databases. */
export class AuthenticatorAppQueries extends Queries {
  async getTotp(userId: number): Promise<TotpRecord | undefined> {
    if (!isRowId(userId)) return undefined;
    const row = (await this.knex('totp_factors').where({ user_id: userId }).first()) as Row | undefined;
    return row && toTotp(row);
  }

  async savePendingTotp(userId: number, secretJwe: string, now: number): Promise<boolean> {
    if (!isRowId(userId)) return false;
    return this.knex.transaction(async (trx) => {
      if (!(await trx('users').where({ id: userId }).first('id'))) return false;
      // One statement: a confirmation committed at the same moment is never overwritten.
      const rows = await trx('totp_factors')
        .insert({ user_id: userId, secret_jwe: secretJwe, confirmed_at: null, last_step: null, created_at: now })
        .onConflict('user_id')
        .merge()
        .whereNull('totp_factors.confirmed_at')
        .returning<Row[]>('user_id');
      return rows.length === 1;
    });
  }

  async confirmTotp(
    userId: number,
    secretJwe: string,
    step: number,
    now: number,
    recoveryCodeHashes: readonly string[],
    ends: Ends,
    keepSessionIdHash?: string,
  ): Promise<Ended | undefined> {
    if (!isRowId(userId) || !isRowKey(secretJwe)) return undefined;
    return this.knex.transaction(async (trx) => {
      const claimed = await trx('totp_factors')
        .where({ user_id: userId, secret_jwe: secretJwe })
        .whereNull('confirmed_at')
        .update({ confirmed_at: now, last_step: step });
      if (claimed !== 1) return undefined;
      await this.writeRecoveryCodes(trx, userId, recoveryCodeHashes, now);
      return endArtifacts(trx, { userId, ...(keepSessionIdHash === undefined ? {} : { keepSessionIdHash }) }, ends, now);
    });
  }

  async useTotpStep(userId: number, step: number): Promise<boolean> {
    if (!isRowId(userId)) return false;
    const changed = await this.knex('totp_factors')
      .where({ user_id: userId })
      .whereNotNull('confirmed_at')
      .whereRaw('(last_step is null or last_step < ?)', [step])
      .update({ last_step: step });
    return changed === 1;
  }

  async deleteTotp(userId: number, ends: Ends, now: number): Promise<boolean> {
    if (!isRowId(userId)) return false;
    return this.knex.transaction(async (trx) => {
      await trx('recovery_codes').where({ user_id: userId }).delete();
      const deleted = (await trx('totp_factors').where({ user_id: userId }).delete()) === 1;
      if (deleted) await endArtifacts(trx, { userId }, ends, now);
      return deleted;
    });
  }

  async replaceRecoveryCodes(userId: number, codeHashes: readonly string[], now: number): Promise<void> {
    if (!isRowId(userId)) return;
    await this.knex.transaction(async (trx) => {
      await this.writeRecoveryCodes(trx, userId, codeHashes, now);
    });
  }

  private async writeRecoveryCodes(trx: Knex.Transaction, userId: number, codeHashes: readonly string[], now: number): Promise<void> {
    await trx('recovery_codes').where({ user_id: userId }).delete();
    if (codeHashes.length > 0) {
      await trx('recovery_codes').insert(codeHashes.map((h) => ({ user_id: userId, code_hash: h, used_at: null, created_at: now })));
    }
  }

  async useRecoveryCode(userId: number, codeHash: string, now: number): Promise<boolean> {
    if (!isRowId(userId) || !isRowKey(codeHash)) return false;
    const changed = await this.knex('recovery_codes').where({ user_id: userId, code_hash: codeHash }).whereNull('used_at').update({ used_at: now });
    return changed === 1;
  }

  async countRecoveryCodes(userId: number): Promise<number> {
    if (!isRowId(userId)) return 0;
    const row = (await this.knex('recovery_codes').where({ user_id: userId }).whereNull('used_at').count({ n: '*' }).first()) as Row | undefined;
    return num(row?.n ?? 0);
  }

  async listRecoveryCodeHashes(userId: number): Promise<string[]> {
    if (!isRowId(userId)) return [];
    const rows = (await this.knex('recovery_codes').select('code_hash').where({ user_id: userId }).whereNull('used_at')) as Row[];
    return rows.map((r) => String(r.code_hash));
  }

  async listLegacyRecoveryCodes(current: string): Promise<{ userId: number; codeHash: string }[]> {
    const rows: Row[] = await this.knex('recovery_codes').select('user_id', 'code_hash').whereRaw('substr(code_hash, 1, ?) <> ?', [current.length, current]);
    return rows.map((r) => ({ userId: num(r.user_id), codeHash: String(r.code_hash) }));
  }

  async rewriteRecoveryCodeHash(userId: number, from: string, to: string): Promise<boolean> {
    if (!isRowId(userId) || !isRowKey(from)) return false;
    return (await this.knex('recovery_codes').where({ user_id: userId, code_hash: from }).update({ code_hash: to })) === 1;
  }

  async deleteFactors(userId: number, ends: Ends, now: number): Promise<{ passkeys: number; totp: boolean; endedSessions: number }> {
    if (!isRowId(userId)) return { passkeys: 0, totp: false, endedSessions: 0 };
    return this.knex.transaction(async (trx) => {
      const passkeys = await trx('passkeys').where({ user_id: userId }).delete();
      await trx('recovery_codes').where({ user_id: userId }).delete();
      const totp = (await trx('totp_factors').where({ user_id: userId }).delete()) === 1;
      const ended = await endArtifacts(trx, { userId }, ends, now);
      return { passkeys, totp, endedSessions: ended.sessions };
    });
  }
}
