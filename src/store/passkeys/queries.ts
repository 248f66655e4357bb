import type { Ends } from '../../domain/security-events.js';
import { UniqueViolation } from '../../domain/errors.js';
import type { NewPasskey, PasskeyRecord, PasskeyUse } from '../../domain/passkeys.js';
import { removeWayIn } from '../users/ways-in.js';
import { toPasskey } from './rows.js';
import { Queries } from '../queries.js';
import { type Row, isRowId, isRowKey, num, uniqueField } from '../rows.js';

/** PasskeyStore (store.ts) in knex: store.passkeys in KnexStore (src/store/knex-store.ts), on both databases. */
export class PasskeysQueries extends Queries {
  async createPasskey(passkey: NewPasskey): Promise<PasskeyRecord> {
    const row: Row = {
      user_id: passkey.userId,
      credential_id: passkey.credentialId,
      public_key: passkey.publicKey,
      counter: passkey.counter,
      transports: JSON.stringify(passkey.transports),
      device_type: passkey.deviceType,
      backed_up: passkey.backedUp,
      name: passkey.name,
      created_at: passkey.createdAt,
      last_used_at: null,
    };
    try {
      const [inserted] = await this.knex('passkeys').insert(row).returning<Row[]>('id');
      return { ...passkey, id: num(inserted!.id), lastUsedAt: null };
    } catch (err) {
      const field = uniqueField(err);
      if (field) throw new UniqueViolation(field);
      throw err;
    }
  }

  async listPasskeys(userId: number): Promise<PasskeyRecord[]> {
    if (!isRowId(userId)) return [];
    const rows = (await this.knex('passkeys').where({ user_id: userId }).orderBy('id')) as Row[];
    return rows.map(toPasskey);
  }

  async getPasskeyByCredentialId(credentialId: string): Promise<PasskeyRecord | undefined> {
    if (!isRowKey(credentialId)) return undefined;
    const row = (await this.knex('passkeys').where({ credential_id: credentialId }).first()) as Row | undefined;
    return row && toPasskey(row);
  }

  async renamePasskey(userId: number, id: number, name: string): Promise<PasskeyRecord | undefined> {
    if (!isRowId(userId) || !isRowId(id)) return undefined;
    if ((await this.knex('passkeys').where({ id, user_id: userId }).update({ name })) !== 1) return undefined;
    const row = (await this.knex('passkeys').where({ id }).first()) as Row | undefined;
    return row && toPasskey(row);
  }

  async deletePasskey(userId: number, id: number, ends: Ends, now: number, keepSessionIdHash?: string): Promise<'deleted' | 'last' | 'missing'> {
    if (!isRowId(userId) || !isRowId(id)) return 'missing';
    const outcome = await removeWayIn(this.knex, 'passkeys', { userId, ...(keepSessionIdHash === undefined ? {} : { keepSessionIdHash }) }, id, ends, now);
    return outcome === 'removed' ? 'deleted' : outcome;
  }

  async recordPasskeyUse(id: number, use: PasskeyUse, now: number): Promise<boolean> {
    if (!isRowId(id)) return false;
    const query = this.knex('passkeys').where({ id });
    // WebAuthn Level 3, 7.2 step 22: a counter that is not 0 must grow.
    if (use.counter === 0) query.where({ counter: 0 });
    else query.where('counter', '<', use.counter);
    const changed = await query.update({ counter: use.counter, device_type: use.deviceType, backed_up: use.backedUp, last_used_at: now });
    return changed === 1;
  }
}
