import type { Knex } from 'knex';
import { EXPIRED, REDEEMED, type Redemption, type TokenRecord } from '../../domain/apps.js';
import { DEAD, ROTATED, type RefreshTokenRecord, type Rotation } from '../../domain/refresh-tokens.js';
import { claimCode } from '../apps/queries.js';
import { tokenRow } from '../apps/rows.js';
import { Queries } from '../queries.js';
import { isRowKey, type Row } from '../rows.js';
import { refreshTokenRow, toRefreshToken } from './rows.js';

/**
 * RefreshTokenStore (store.ts) in knex: store.refreshTokens in KnexStore (src/store/knex-store.ts), on both
 * databases, with no dialect store overriding it (refresh tokens are not a hot path). Every write
 * that decides something (a claim, a rotation) is one conditional UPDATE inside a transaction: on
 * PostgreSQL the second of two concurrent rotations waits for the first's row lock, then finds
 * the token used; on SQLite the writes are serialized. Either way exactly one wins.
 */
export class RefreshTokensQueries extends Queries {
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
    const rotated = await this.knex.transaction(async (trx) => {
      const claimed = await trx('refresh_tokens')
        .where({ token_hash: tokenHash })
        .whereNull('used_at')
        .whereNull('revoked_at')
        .where('expires_at', '>', now)
        .update({ used_at: now });
      if (claimed !== 1) return false;
      await trx('access_tokens').insert(tokenRow(next.access));
      await trx('refresh_tokens').insert(refreshTokenRow(next.refresh));
      return true;
    });
    if (rotated) return ROTATED;
    // Not claimed: used, revoked, expired or unknown. What follows runs after the claim's
    // transaction has ended, on purpose: on PostgreSQL a claim that waited for a concurrent
    // rotation of the same token keeps a lock on the token's row although it updated nothing (the
    // row is locked before its conditions are checked again), and a family revocation in the same
    // transaction would then take its locks out of order and deadlock with another loser's.
    const row = await this.knex('refresh_tokens').where({ token_hash: tokenHash }).first<Row | undefined>('family_id', 'used_at');
    if (row?.used_at === null || row?.used_at === undefined) return DEAD;
    return { outcome: 'reused', revokedTokens: await this.revokeRefreshFamily(String(row.family_id), now) };
  }

  async revokeRefreshFamily(familyId: string, now: number): Promise<number> {
    if (!isRowKey(familyId)) return 0;
    return this.knex.transaction((trx) => revokeFamilies(trx, { family_id: familyId }, now));
  }
}

/**
 * Locks the refresh tokens `where` selects, in the order of their hashes, before anything else
 * of them changes. Every transaction that revokes or deletes refresh tokens of more than one row
 * takes this lock first, so two of them (a replay's family revocation, a password change, a
 * revoked grant, a suspension) wait for each other instead of deadlocking on rows locked in scan
 * order, and one that waited for a rotation sees the rotation's new tokens in its next statements.
 * SQLite serializes writers and ignores the lock (knex leaves `for update` out).
 */
async function lockRefreshTokens(trx: Knex.Transaction, where: Row): Promise<number> {
  const rows = await trx('refresh_tokens').where(where).orderBy('token_hash').forUpdate().select('token_hash');
  return rows.length;
}

/**
 * Revokes the refresh tokens `where` selects (a family, or every family of a user) and the access
 * tokens issued with them (each refresh token's row names its access token: access_tokens has no
 * index that would find them, and every exchange would pay for one). Returns how many tokens it
 * revoked.
 */
export async function revokeFamilies(trx: Knex.Transaction, where: Row, now: number): Promise<number> {
  if ((await lockRefreshTokens(trx, where)) === 0) return 0;
  const accessHashes = trx('refresh_tokens').select('access_token_hash').where(where);
  const access = await trx('access_tokens').whereIn('token_hash', accessHashes).whereNull('revoked_at').update({ revoked_at: now });
  const refresh = await trx('refresh_tokens').where(where).whereNull('revoked_at').update({ revoked_at: now });
  return access + refresh;
}
