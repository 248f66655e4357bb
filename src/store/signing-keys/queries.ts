import type { SigningKeyRecord } from '../../domain/signing-keys.js';
import { Queries } from '../queries.js';
import { type Row, isRowKey } from '../rows.js';
import { toSigningKey } from './rows.js';

/** SigningKeyStore (store.ts) in knex: store.signingKeys in KnexStore (src/store/knex-store.ts), on both databases. */
export class SigningKeysQueries extends Queries {
  async listSigningKeys(): Promise<SigningKeyRecord[]> {
    const rows = await this.knex<Row>('signing_keys').orderByRaw('case when retired_at is null then 0 else 1 end, created_at desc, kid desc');
    return rows.map(toSigningKey);
  }

  async addSigningKey(key: SigningKeyRecord, retireOthersAt: number | null): Promise<void> {
    await this.knex.transaction(async (trx) => {
      if (retireOthersAt !== null) await trx('signing_keys').whereNull('retired_at').update({ retired_at: retireOthersAt });
      await trx('signing_keys').insert({
        kid: key.kid,
        alg: key.alg,
        public_jwk: key.publicJwk,
        private_jwe: key.privateJwe,
        created_at: key.createdAt,
        retired_at: key.retiredAt,
      });
    });
  }

  async retireSigningKey(kid: string, at: number): Promise<boolean> {
    if (!isRowKey(kid)) return false;
    return (await this.knex('signing_keys').where({ kid }).whereNull('retired_at').update({ retired_at: at })) === 1;
  }

  async dropSigningKeys(retiredBy: number): Promise<string[]> {
    return this.knex.transaction(async (trx) => {
      const rows = await trx<Row>('signing_keys').whereNotNull('retired_at').where('retired_at', '<=', retiredBy).select('kid');
      const kids = rows.map((r) => String(r.kid));
      if (kids.length > 0) await trx('signing_keys').whereIn('kid', kids).delete();
      return kids;
    });
  }
}
