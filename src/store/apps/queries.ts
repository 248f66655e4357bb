import type { Knex } from 'knex';
import { type AppPatch, type AppRecord, type CodeRecord, EXPIRED, REDEEMED, type Redemption, type TokenRecord, type TokenWithUser } from '../../domain/apps.js';
import { appPatchRow, toApp, tokenRow } from './rows.js';
import { Queries } from '../queries.js';
import { type Row, isRowId, isRowKey } from '../rows.js';

/** AppStore (store.ts) in knex: store.apps in KnexStore (src/store/knex-store.ts), on both databases. */
export abstract class AppsQueries extends Queries {
  async createApp(app: AppRecord): Promise<void> {
    await this.knex('apps').insert({
      client_id: app.clientId,
      secret_hash: app.secretHash,
      public: app.public,
      owner_id: app.ownerId,
      name: app.name,
      redirect_uris: JSON.stringify(app.redirectUris),
      post_logout_redirect_uris: JSON.stringify(app.postLogoutRedirectUris),
      grant_types: app.grantTypes.join(' '),
      created_at: app.createdAt,
    });
  }

  /** A hot path: each database's own (sqlite.ts, postgres.ts) reads it with a prepared statement. */
  abstract getApp(clientId: string): Promise<AppRecord | undefined>;

  async listAppsByOwner(ownerId: number): Promise<AppRecord[]> {
    if (!isRowId(ownerId)) return [];
    const rows = (await this.knex('apps').where({ owner_id: ownerId }).orderBy([{ column: 'created_at' }, { column: 'client_id' }])) as Row[];
    return rows.map(toApp);
  }

  async setAppSecret(clientId: string, secretHash: string): Promise<boolean> {
    if (!isRowKey(clientId)) return false;
    return (await this.knex('apps').where({ client_id: clientId }).update({ secret_hash: secretHash })) === 1;
  }

  async updateApp(clientId: string, patch: AppPatch): Promise<boolean> {
    if (!isRowKey(clientId)) return false;
    const row = appPatchRow(patch);
    if (Object.keys(row).length === 0) return (await this.knex('apps').where({ client_id: clientId }).first('client_id')) !== undefined;
    return (await this.knex('apps').where({ client_id: clientId }).update(row)) === 1;
  }

  async deleteApp(clientId: string): Promise<boolean> {
    if (!isRowKey(clientId)) return false;
    return this.knex.transaction(async (trx) => {
      await trx('device_authorizations').where({ client_id: clientId }).delete();
      await trx('refresh_tokens').where({ client_id: clientId }).delete();
      await trx('access_tokens').where({ client_id: clientId }).delete();
      await trx('auth_codes').where({ client_id: clientId }).delete();
      return (await trx('apps').where({ client_id: clientId }).delete()) === 1;
    });
  }

  async createCode(code: CodeRecord): Promise<void> {
    await this.knex('auth_codes').insert({
      code_hash: code.codeHash,
      client_id: code.clientId,
      user_id: code.userId,
      scopes: code.scopes.join(' '),
      redirect_uri: code.redirectUri,
      code_challenge: code.codeChallenge,
      nonce: code.nonce,
      auth_time: code.authTime,
      amr: code.amr === null ? null : code.amr.join(' '),
      expires_at: code.expiresAt,
      used_at: code.usedAt,
      created_at: code.createdAt,
    });
  }

  /** A hot path: each database's own (sqlite.ts, postgres.ts) reads it with a prepared statement. */
  abstract getCode(codeHash: string): Promise<CodeRecord | undefined>;

  async getAppAndCode(clientId: string, codeHash: string): Promise<{ app: AppRecord | undefined; code: CodeRecord | undefined }> {
    return { app: await this.getApp(clientId), code: await this.getCode(codeHash) };
  }

  async redeemCode(codeHash: string, now: number, token: TokenRecord): Promise<Redemption> {
    // No row has this key: as for a code that is gone, there is nothing to revoke.
    if (!isRowKey(codeHash)) return { outcome: 'replayed', revokedTokens: 0 };
    return this.knex.transaction(async (trx) => {
      const claim = await claimCode(trx, codeHash, now, token);
      if (claim !== 'used') return claim === 'claimed' ? REDEEMED : EXPIRED;
      return { outcome: 'replayed', revokedTokens: await this.revokeOfCode(trx, codeHash, now) };
    });
  }

  async revokeTokensOfCode(codeHash: string, now: number): Promise<number> {
    if (!isRowKey(codeHash)) return 0;
    return this.revokeOfCode(this.knex, codeHash, now);
  }

  /** Through the code's row, which names the token it was redeemed for (migration 009). */
  private revokeOfCode(knex: Knex, codeHash: string, now: number): Promise<number> {
    return knex('access_tokens')
      .whereIn('token_hash', knex('auth_codes').select('token_hash').where({ code_hash: codeHash }))
      .whereNull('revoked_at')
      .update({ revoked_at: now });
  }

  /** A hot path: each database's own (sqlite.ts, postgres.ts) reads it with a prepared statement. */
  abstract getTokenWithUser(tokenHash: string): Promise<TokenWithUser | undefined>;

  async getAppAndToken(clientId: string, tokenHash: string): Promise<{ app: AppRecord | undefined; tokenWithUser: TokenWithUser | undefined }> {
    return { app: await this.getApp(clientId), tokenWithUser: await this.getTokenWithUser(tokenHash) };
  }

  async revokeToken(tokenHash: string, clientId: string, now: number): Promise<boolean> {
    if (!isRowKey(tokenHash) || !isRowKey(clientId)) return false;
    const changed = await this.knex('access_tokens')
      .where({ token_hash: tokenHash, client_id: clientId })
      .whereNull('revoked_at')
      .update({ revoked_at: now });
    return changed === 1;
  }
}

/**
 * The claim at the heart of a code's redemption, inside the caller's transaction: marks the code
 * used if it is unused and unexpired and stores its access token. `expired`: an unused code past
 * its expiry (nothing written); `used`: redeemed already, or gone.
 */
export async function claimCode(trx: Knex.Transaction, codeHash: string, now: number, token: TokenRecord): Promise<'claimed' | 'expired' | 'used'> {
  const claimed = await trx('auth_codes')
    .where({ code_hash: codeHash })
    .whereNull('used_at')
    .where('expires_at', '>', now)
    .update({ used_at: now, token_hash: token.tokenHash });
  if (claimed === 1) {
    await trx('access_tokens').insert(tokenRow(token));
    return 'claimed';
  }
  return (await trx('auth_codes').where({ code_hash: codeHash }).whereNull('used_at').first('code_hash')) ? 'expired' : 'used';
}
