import type { Knex } from 'knex';
import { EXPIRED, REDEEMED, type Redemption, type TokenRecord } from '../../domain/apps.js';
import { DEAD, ROTATED, type RefreshTokenRecord, type Rotation } from '../../domain/refresh-tokens.js';
import { claimCode } from '../apps/queries.js';
import { tokenRow } from '../apps/rows.js';
import { Queries } from '../queries.js';
import { isRowId, isRowKey, type Row } from '../rows.js';
import { refreshTokenRow, toRefreshToken } from './rows.js';

/**
 * RefreshTokenStore (store.ts) in knex: part of KnexStore (src/store/knex-store.ts), on both
 * databases, with no dialect store overriding it (refresh tokens are not a hot path). Every write
 * that decides something (a claim, a rotation) is one conditional UPDATE inside a transaction: on
 * PostgreSQL the second of two concurrent rotations waits for the first's row lock, then finds
 * the token used; on SQLite the writes are serialized. Either way exactly one wins.
 */
export abstract class RefreshTokensQueries extends Queries {
  async redeemCodeWithRefresh(codeHash: string, now: number, token: TokenRecord, refresh: RefreshTokenRecord): Promise<Redemption> {
    if (!isRowKey(codeHash)) return { outcome: 'replayed', revokedTokens: 0 };
    return this.knex.transaction(async (trx) => {
      const claim = await claimCode(trx, codeHash, now, token);
      if (claim === 'claimed') {
        await trx('refresh_tokens').insert(refreshTokenRow(refresh));
        return REDEEMED;
      }
      // Replayed: unlike redeemCode, nothing is revoked here; the caller revokes what the first
      // redemption got (revokeTokensOfCode, revokeRefreshFamily).
      return claim === 'expired' ? EXPIRED : { outcome: 'replayed', revokedTokens: 0 };
    });
  }

  async getRefreshToken(tokenHash: string): Promise<RefreshTokenRecord | undefined> {
    if (!isRowKey(tokenHash)) return undefined;
    const row = (await this.knex('refresh_tokens').where({ token_hash: tokenHash }).first()) as Row | undefined;
    return row && toRefreshToken(row);
  }

  async rotateRefreshToken(tokenHash: string, now: number, next: { refresh: RefreshTokenRecord; access: TokenRecord }): Promise<Rotation> {
    if (!isRowKey(tokenHash)) return DEAD;
    return this.knex.transaction(async (trx) => {
      const claimed = await trx('refresh_tokens')
        .where({ token_hash: tokenHash })
        .whereNull('used_at')
        .whereNull('revoked_at')
        .where('expires_at', '>', now)
        .update({ used_at: now });
      if (claimed === 1) {
        await trx('access_tokens').insert(tokenRow(next.access));
        await trx('refresh_tokens').insert(refreshTokenRow(next.refresh));
        return ROTATED;
      }
      const row = await trx('refresh_tokens').where({ token_hash: tokenHash }).first<Row | undefined>('family_id', 'used_at');
      if (row?.used_at === null || row?.used_at === undefined) return DEAD;
      return { outcome: 'reused', revokedTokens: await revokeFamilies(trx, { family_id: row.family_id }, now) };
    });
  }

  async revokeRefreshFamily(familyId: string, now: number): Promise<number> {
    if (!isRowKey(familyId)) return 0;
    return this.knex.transaction((trx) => revokeFamilies(trx, { family_id: familyId }, now));
  }

  async revokeUserRefreshTokens(userId: number, now: number): Promise<number> {
    if (!isRowId(userId)) return 0;
    return this.knex.transaction((trx) => revokeFamilies(trx, { user_id: userId }, now));
  }
}

/**
 * Revokes the families of the refresh tokens `where` selects: their refresh tokens and the access
 * tokens issued with them (each refresh token's row names its access token: access_tokens has no
 * index that would find them, and every exchange would pay for one). Returns how many tokens it
 * revoked.
 */
async function revokeFamilies(trx: Knex.Transaction, where: Row, now: number): Promise<number> {
  const families = await trx('refresh_tokens').distinct('family_id').where(where);
  let revoked = 0;
  for (const { family_id: familyId } of families as Row[]) {
    const accessHashes = trx('refresh_tokens').select('access_token_hash').where({ family_id: familyId });
    revoked += await trx('access_tokens').whereIn('token_hash', accessHashes).whereNull('revoked_at').update({ revoked_at: now });
    revoked += await trx('refresh_tokens').where({ family_id: familyId }).whereNull('revoked_at').update({ revoked_at: now });
  }
  return revoked;
}
