import type { Knex } from 'knex';
import { RateLimiterPostgres, RateLimiterSQLite, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Dialect } from './connection.js';
import { migrationSource } from './migrations/index.js';
import {
  isRowId,
  isRowKey,
  num,
  numOrNull,
  moderationActionRow,
  PUBLIC_USER_COLUMNS,
  TOKEN_WITH_USER_COLUMNS,
  toApp,
  toCode,
  toSigningKey,
  toEmailLink,
  toGame,
  toGrant,
  toGrantWithApp,
  toModerationAction,
  tokenRow,
  toPasskey,
  toPublicUserRecord,
  toReport,
  toSessionMeta,
  toSignIn,
  toTokenWithUser,
  toTotp,
  toUser,
  type Row,
} from './rows.js';
import {
  EXPIRED,
  REDEEMED,
  UniqueViolation,
  type AppRecord,
  type CodeRecord,
  type DatabaseErrorListener,
  type EmailLinkEffect,
  type EmailLinkPurpose,
  type EmailLinkRecord,
  type GameRecord,
  type GameWithAuthor,
  type GrantRecord,
  type GrantWithApp,
  type ModerationActionRecord,
  type ModerationUserSummaryRecord,
  type NewModerationAction,
  type NewPasskey,
  type NewReport,
  type ReportOutcome,
  type ReportRecord,
  type SuspensionRecord,
  type PasskeyRecord,
  type PasskeyUse,
  type SessionMeta,
  type NewGame,
  type NewUser,
  type PublicUserRecord,
  type PurgeBatch,
  type PurgeCounts,
  type RateLimitRule,
  type Redemption,
  type SignInRecord,
  type SigningKeyRecord,
  type Store,
  type TokenRecord,
  type TokenWithUser,
  type TotpRecord,
  type UserPatch,
  type UserRecord,
} from './types.js';

/** Maps a unique-constraint failure from SQLite or PostgreSQL to the field it concerns. */
function uniqueField(err: unknown): string | undefined {
  const e = err as { code?: string; message?: string; constraint?: string };
  let column: string | undefined;
  if (e.code === '23505') {
    column = e.constraint; // PostgreSQL: users_email_unique, users_name_key_unique
  } else if (e.code === 'SQLITE_CONSTRAINT_UNIQUE') {
    // knex prefixes the whole statement, which names every column: read only SQLite's own part.
    column = /UNIQUE constraint failed: ([\w.]+)/.exec(e.message ?? '')?.[1];
  } else {
    return undefined;
  }
  if (column?.includes('name_key')) return 'name';
  if (column?.includes('credential_id')) return 'credential';
  if (column?.includes('reports')) return 'report';
  if (column?.includes('email')) return 'email';
  return 'value';
}

/** The pg connection under knex, as migrate() uses it. */
interface PgConnection {
  query(sql: string, values?: unknown[]): Promise<unknown>;
}

/** The advisory lock key migrate() holds on PostgreSQL (any constant; this one spells "idp mig"). */
const MIGRATION_LOCK_KEY = 0x6964706d6967;

/** Rolls back a link's transaction when its condition on the user no longer holds. */
class LinkNotApplicable extends Error {}

/**
 * The Store in knex: every method, on both databases. PostgreSQL (and an in-memory SQLite
 * database) uses it as it is; a SQLite file uses SqliteStore (sqlite-store.ts), which replaces
 * five hot reads (a user, a public user, a token with its user, an app, a code) and three writes
 * (the token exchange's redemption, a replayed code's revocation, RFC 7009 revocation) with
 * prepared statements. openStoreAt (open.ts) picks which. Every lookup checks its keys first (the
 * input guard, rows.ts).
 */
export class KnexStore implements Store {
  /** Told of every database error the outage guard (src/store/outage.ts) classifies. */
  errorListener: DatabaseErrorListener | undefined;

  constructor(
    readonly knex: Knex,
    protected readonly dialect: Dialect,
  ) {}

  // StoreLifecycle and RateLimitStore

  onDatabaseError(listener: DatabaseErrorListener): void {
    this.errorListener = listener;
  }

  /**
   * On PostgreSQL, under a session advisory lock held on a connection of its own: instances
   * started at the same moment on an empty database run the migrations one after another (the
   * first runs them, the others find nothing left to do), instead of racing to create knex's own
   * tables, which knex's migration lock (a table itself) cannot prevent.
   */
  async migrate(): Promise<void> {
    if (this.dialect !== 'postgres') {
      await this.knex.migrate.latest({ migrationSource });
      return;
    }
    const client = this.knex.client as { acquireConnection(): Promise<PgConnection>; releaseConnection(c: PgConnection): Promise<void> };
    const connection = await client.acquireConnection();
    try {
      // Waiting for another instance's migrations is not bounded by the statement timeout.
      await connection.query('set statement_timeout = 0');
      await connection.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
      try {
        await this.knex.migrate.latest({ migrationSource });
      } finally {
        await connection.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
        await connection.query('reset statement_timeout');
      }
    } finally {
      await client.releaseConnection(connection);
    }
  }

  rateLimiter(rule: RateLimitRule): RateLimiterAbstract {
    // The table comes from migration 003, not from the limiter (tableCreated), so it is created once
    // by the migration lock instead of by every instance racing at start.
    const opts = {
      storeClient: this.knex,
      storeType: 'knex',
      tableName: 'rate_limits',
      tableCreated: true,
      keyPrefix: rule.keyPrefix,
      points: rule.points,
      duration: rule.seconds,
    };
    return this.dialect === 'postgres' ? new RateLimiterPostgres(opts) : new RateLimiterSQLite(opts);
  }

  async ping(): Promise<void> {
    await this.knex.raw('select 1');
  }

  async close(): Promise<void> {
    await this.knex.destroy();
  }

  // UserStore

  async countUsers(): Promise<number> {
    const row = (await this.knex('users').count({ n: '*' }).first()) as Row | undefined;
    return num(row?.n ?? 0);
  }

  async createUser(user: NewUser, now: number): Promise<UserRecord> {
    const nameKey = user.name.toLowerCase();
    try {
      return await this.knex.transaction(async (trx) => {
        if (await trx('retired_names').where({ name_key: nameKey }).first()) throw new UniqueViolation('name');
        const [row] = await trx('users')
          .insert({
            name: user.name,
            name_key: nameKey,
            email: user.email,
            password_hash: user.passwordHash,
            email_verified_at: user.emailVerifiedAt ?? null,
            profile_updated_at: now,
            created_at: now,
          })
          .returning<Row[]>('*');
        return toUser(row!);
      });
    } catch (err) {
      if (err instanceof UniqueViolation) throw err;
      const field = uniqueField(err);
      if (field) throw new UniqueViolation(field);
      throw err;
    }
  }

  async getUser(id: number): Promise<UserRecord | undefined> {
    if (!isRowId(id)) return undefined;
    const row = (await this.knex('users').where({ id }).first()) as Row | undefined;
    return row && toUser(row);
  }

  async getPublicUser(id: number): Promise<PublicUserRecord | undefined> {
    if (!isRowId(id)) return undefined;
    const row = (await this.knex('users').select(PUBLIC_USER_COLUMNS).where({ id }).first()) as Row | undefined;
    return row && toPublicUserRecord(row);
  }

  async getPfpTimestamp(id: number): Promise<number | null | undefined> {
    if (!isRowId(id)) return undefined;
    const row = await this.knex('users').where({ id }).first<Row | undefined>('pfp_timestamp');
    return row && numOrNull(row.pfp_timestamp);
  }

  async getUserByName(name: string): Promise<UserRecord | undefined> {
    if (!isRowKey(name)) return undefined;
    const row = (await this.knex('users').where({ name_key: name.toLowerCase() }).first()) as Row | undefined;
    return row && toUser(row);
  }

  async getUserByEmail(email: string): Promise<UserRecord | undefined> {
    if (!isRowKey(email)) return undefined;
    const row = (await this.knex('users').where({ email: email.toLowerCase() }).first()) as Row | undefined;
    return row && toUser(row);
  }

  async recordHeartbeat(id: number, expected: number, now: number, addMinutes: number): Promise<UserRecord | undefined> {
    if (!isRowId(id)) return undefined;
    const changed = await this.knex('users')
      .where({ id, last_heartbeat: expected })
      .update({ last_heartbeat: now, play_minutes: this.knex.raw('play_minutes + ?', [addMinutes]) });
    return changed === 1 ? this.getUser(id) : undefined;
  }

  async updateUser(id: number, patch: UserPatch): Promise<UserRecord | undefined> {
    if (!isRowId(id)) return undefined;
    const row: Row = {};
    if (patch.bio !== undefined) {
      row.bio = patch.bio;
      // A bio written after a moderator removed one ends the notice of the removal.
      row.bio_removed_reason = null;
      row.bio_removed_at = null;
    }
    if (patch.flairs !== undefined) row.flairs = JSON.stringify(patch.flairs);
    if (patch.equippedFlair !== undefined) row.equipped_flair = patch.equippedFlair;
    if (patch.playMinutes !== undefined) row.play_minutes = patch.playMinutes;
    if (patch.lastHeartbeat !== undefined) row.last_heartbeat = patch.lastHeartbeat;
    if (patch.modLevel !== undefined) row.mod_level = patch.modLevel;
    if (Object.keys(row).length > 0) await this.knex('users').where({ id }).update(row);
    return this.getUser(id);
  }

  async swapPfpTimestamp(id: number, expected: number | null, next: number | null, at?: number): Promise<boolean> {
    if (!isRowId(id)) return false;
    const query = this.knex('users').where({ id });
    if (expected === null) query.whereNull('pfp_timestamp');
    else query.where({ pfp_timestamp: expected });
    // Callers pick `next` above the high-water mark, so it becomes the new mark.
    const row: Row = next === null ? { pfp_timestamp: null } : { pfp_timestamp: next, pfp_high_water: next };
    const updatedAt = at ?? next;
    if (updatedAt !== null) row.profile_updated_at = updatedAt;
    return (await query.update(row)) === 1;
  }

  async setUserPassword(id: number, passwordHash: string): Promise<boolean> {
    if (!isRowId(id)) return false;
    return (await this.knex('users').where({ id }).update({ password_hash: passwordHash })) === 1;
  }

  async deleteUser(id: number, now: number): Promise<UserRecord | undefined> {
    if (!isRowId(id)) return undefined;
    return this.knex.transaction(async (trx) => {
      const row = (await trx('users').where({ id }).first()) as Row | undefined;
      if (!row) return undefined;
      const owned = trx('apps').select('client_id').where({ owner_id: id });
      // Explicit rather than left to ON DELETE CASCADE alone: the order is the one a crash
      // mid-way would leave least behind, and it does not depend on SQLite's foreign_keys pragma.
      await trx('access_tokens').where({ user_id: id }).orWhereIn('client_id', owned).delete();
      await trx('auth_codes').where({ user_id: id }).orWhereIn('client_id', owned).delete();
      await trx('grants').where({ user_id: id }).orWhereIn('client_id', owned).delete();
      await trx('sessions').where({ user_id: id }).delete();
      await trx('email_links').where({ user_id: id }).delete();
      await trx('passkeys').where({ user_id: id }).delete();
      await trx('recovery_codes').where({ user_id: id }).delete();
      await trx('totp_factors').where({ user_id: id }).delete();
      await trx('reports').where({ reporter_id: id }).orWhere({ target_id: id }).delete();
      await trx('games').where({ author_id: id }).delete();
      await trx('apps').where({ owner_id: id }).delete();
      await trx('retired_names').insert({ name_key: String(row.name_key), retired_at: now }).onConflict('name_key').ignore();
      await trx('users').where({ id }).delete();
      return toUser(row);
    });
  }

  // AppStore: apps, codes, tokens

  async createApp(app: AppRecord): Promise<void> {
    await this.knex('apps').insert({
      client_id: app.clientId,
      secret_hash: app.secretHash,
      public: app.public,
      owner_id: app.ownerId,
      name: app.name,
      redirect_uris: JSON.stringify(app.redirectUris),
      post_logout_redirect_uris: JSON.stringify(app.postLogoutRedirectUris),
      created_at: app.createdAt,
    });
  }

  async getApp(clientId: string): Promise<AppRecord | undefined> {
    if (!isRowKey(clientId)) return undefined;
    const row = (await this.knex('apps').where({ client_id: clientId }).first()) as Row | undefined;
    return row && toApp(row);
  }

  async listAppsByOwner(ownerId: number): Promise<AppRecord[]> {
    if (!isRowId(ownerId)) return [];
    const rows = (await this.knex('apps').where({ owner_id: ownerId }).orderBy([{ column: 'created_at' }, { column: 'client_id' }])) as Row[];
    return rows.map(toApp);
  }

  async setAppSecret(clientId: string, secretHash: string): Promise<boolean> {
    if (!isRowKey(clientId)) return false;
    return (await this.knex('apps').where({ client_id: clientId }).update({ secret_hash: secretHash })) === 1;
  }

  async deleteApp(clientId: string): Promise<boolean> {
    if (!isRowKey(clientId)) return false;
    return this.knex.transaction(async (trx) => {
      await trx('access_tokens').where({ client_id: clientId }).delete();
      await trx('auth_codes').where({ client_id: clientId }).delete();
      return (await trx('apps').where({ client_id: clientId }).delete()) === 1;
    });
  }

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

  async getCode(codeHash: string): Promise<CodeRecord | undefined> {
    if (!isRowKey(codeHash)) return undefined;
    const row = (await this.knex('auth_codes').where({ code_hash: codeHash }).first()) as Row | undefined;
    return row && toCode(row);
  }

  async getAppAndCode(clientId: string, codeHash: string): Promise<{ app: AppRecord | undefined; code: CodeRecord | undefined }> {
    return { app: await this.getApp(clientId), code: await this.getCode(codeHash) };
  }

  async redeemCode(codeHash: string, now: number, token: TokenRecord): Promise<Redemption> {
    // No row has this key: as for a code that is gone, there is nothing to revoke.
    if (!isRowKey(codeHash)) return { outcome: 'replayed', revokedTokens: 0 };
    return this.knex.transaction(async (trx) => {
      const claimed = await trx('auth_codes')
        .where({ code_hash: codeHash })
        .whereNull('used_at')
        .where('expires_at', '>', now)
        .update({ used_at: now, token_hash: token.tokenHash });
      if (claimed === 1) {
        await trx('access_tokens').insert(tokenRow(token));
        return REDEEMED;
      }
      if (await trx('auth_codes').where({ code_hash: codeHash }).whereNull('used_at').first('code_hash')) return EXPIRED;
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

  async getTokenWithUser(tokenHash: string): Promise<TokenWithUser | undefined> {
    if (!isRowKey(tokenHash)) return undefined;
    const row = await this.knex('access_tokens as t')
      .join('users as u', 'u.id', 't.user_id')
      .where('t.token_hash', tokenHash)
      .first<Row | undefined>(TOKEN_WITH_USER_COLUMNS);
    return row && toTokenWithUser(row);
  }

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

  // PurgeStore

  async purgeExpired(batch: PurgeBatch): Promise<PurgeCounts> {
    return {
      tokens: await this.deleteExpiredBatch('access_tokens', 'token_hash', batch.tokensExpiredBy, batch.limit),
      codes: await this.deleteExpiredBatch('auth_codes', 'code_hash', batch.codesExpiredBy, batch.limit),
      sessions: await this.deleteExpiredBatch('sessions', 'id_hash', batch.sessionsExpiredBy, batch.limit),
    };
  }

  /**
   * One bounded delete through the expires_at index, so a backlog of millions never becomes one
   * long statement holding the writer. On PostgreSQL, SKIP LOCKED lets two instances purging at
   * once take different rows instead of queueing on each other's.
   */
  private async deleteExpiredBatch(table: string, key: string, expiredBy: number, limit: number): Promise<number> {
    if (this.dialect === 'postgres') {
      const victims = this.knex(table).select(key).where('expires_at', '<=', expiredBy).limit(limit).forUpdate().skipLocked();
      return this.knex(table).whereIn(key, victims).delete();
    }
    // SQLite: by rowid, half the time of going through the text primary key
    // (docs/performance.md#the-purge), and better-sqlite3 blocks the event loop for all of it.
    const victims = this.knex(table).select('rowid').where('expires_at', '<=', expiredBy).limit(limit);
    return this.knex(table).whereIn('rowid', victims).delete();
  }

  // GameStore

  async createGame(game: NewGame): Promise<GameRecord> {
    const [row] = await this.knex('games')
      .insert({ author_id: game.authorId, title: game.title, url: game.url, created_at: game.createdAt })
      .returning<Row[]>('id');
    return { id: num(row?.id), ...game };
  }

  private gamesQuery() {
    return this.knex('games as g').join('users as u', 'u.id', 'g.author_id').select('g.*', 'u.name as author_name');
  }

  async getGame(id: number): Promise<GameWithAuthor | undefined> {
    if (!isRowId(id)) return undefined;
    const row = (await this.gamesQuery().where('g.id', id).first()) as Row | undefined;
    return row && toGame(row);
  }

  async listGames(): Promise<GameWithAuthor[]> {
    const rows = (await this.gamesQuery().orderBy('g.id', 'desc')) as Row[];
    return rows.map(toGame);
  }

  async listGamesByAuthor(authorId: number): Promise<GameWithAuthor[]> {
    if (!isRowId(authorId)) return [];
    const rows = (await this.gamesQuery().where('g.author_id', authorId).orderBy('g.id')) as Row[];
    return rows.map(toGame);
  }

  // GrantStore

  async getGrant(userId: number, clientId: string): Promise<GrantRecord | undefined> {
    if (!isRowId(userId) || !isRowKey(clientId)) return undefined;
    const row = (await this.knex('grants').where({ user_id: userId, client_id: clientId }).first()) as Row | undefined;
    return row && toGrant(row);
  }

  async saveGrant(grant: Pick<GrantRecord, 'userId' | 'clientId' | 'scopes'>, now: number): Promise<void> {
    await this.knex('grants')
      .insert({ user_id: grant.userId, client_id: grant.clientId, scopes: grant.scopes.join(' '), created_at: now, last_used_at: now })
      .onConflict(['user_id', 'client_id'])
      .merge(['scopes', 'last_used_at']);
  }

  async touchGrant(userId: number, clientId: string, now: number): Promise<void> {
    if (!isRowId(userId) || !isRowKey(clientId)) return;
    await this.knex('grants').where({ user_id: userId, client_id: clientId }).update({ last_used_at: now });
  }

  async listGrants(userId: number): Promise<GrantWithApp[]> {
    if (!isRowId(userId)) return [];
    const rows = await this.knex('grants as g')
      .join('apps as a', 'a.client_id', 'g.client_id')
      .join('users as o', 'o.id', 'a.owner_id')
      .where('g.user_id', userId)
      .orderBy([{ column: 'g.created_at' }, { column: 'g.client_id' }])
      .select<Row[]>('g.*', 'a.name as app_name', 'a.owner_id', 'o.name as owner_name');
    return rows.map(toGrantWithApp);
  }

  async revokeGrant(userId: number, clientId: string, now: number): Promise<boolean> {
    if (!isRowId(userId) || !isRowKey(clientId)) return false;
    return this.knex.transaction(async (trx) => {
      const deleted = await trx('grants').where({ user_id: userId, client_id: clientId }).delete();
      if (deleted !== 1) return false;
      await trx('access_tokens').where({ user_id: userId, client_id: clientId }).whereNull('revoked_at').update({ revoked_at: now });
      await trx('auth_codes').where({ user_id: userId, client_id: clientId }).whereNull('used_at').delete();
      return true;
    });
  }

  // EmailLinkStore

  async createEmailLink(link: EmailLinkRecord): Promise<void> {
    await this.knex('email_links').insert({
      token_hash: link.tokenHash,
      user_id: link.userId,
      purpose: link.purpose,
      email: link.email,
      expires_at: link.expiresAt,
      used_at: link.usedAt,
      created_at: link.createdAt,
    });
  }

  async getEmailLink(tokenHash: string): Promise<EmailLinkRecord | undefined> {
    if (!isRowKey(tokenHash)) return undefined;
    const row = (await this.knex('email_links').where({ token_hash: tokenHash }).first()) as Row | undefined;
    return row && toEmailLink(row);
  }

  async deleteEmailLink(tokenHash: string): Promise<void> {
    if (!isRowKey(tokenHash)) return;
    await this.knex('email_links').where({ token_hash: tokenHash }).delete();
  }

  async listEmailLinks(userId: number, purpose: EmailLinkPurpose): Promise<EmailLinkRecord[]> {
    const rows = (await this.knex('email_links').where({ user_id: userId, purpose }).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'token_hash' }])) as Row[];
    return rows.map(toEmailLink);
  }

  async redeemEmailLink(tokenHash: string, now: number, effect: EmailLinkEffect, voids: readonly EmailLinkPurpose[]): Promise<boolean> {
    if (!isRowKey(tokenHash)) return false;
    try {
      return await this.knex.transaction(async (trx) => {
        const link = (await trx('email_links').where({ token_hash: tokenHash }).first()) as Row | undefined;
        if (!link) return false;
        const claimed = await trx('email_links')
          .where({ token_hash: tokenHash })
          .whereNull('used_at')
          .where('expires_at', '>', now)
          .update({ used_at: now });
        if (claimed !== 1) return false;
        const userId = num(link.user_id);
        const row: Row = {};
        if (effect.passwordHash !== undefined) row.password_hash = effect.passwordHash;
        if (effect.email !== undefined) row.email = effect.email;
        if (effect.emailVerifiedAt !== undefined) row.email_verified_at = effect.emailVerifiedAt;
        const user = trx('users').where({ id: userId });
        if (effect.whileEmailIs !== undefined) user.where({ email: effect.whileEmailIs });
        if ((await user.update(row)) !== 1) throw new LinkNotApplicable();
        if (voids.length > 0) {
          await trx('email_links').where({ user_id: userId }).whereIn('purpose', voids).whereNull('used_at').update({ used_at: now });
        }
        return true;
      });
    } catch (err) {
      if (err instanceof LinkNotApplicable) return false;
      const field = uniqueField(err);
      if (field) throw new UniqueViolation(field);
      throw err;
    }
  }

  // SessionStore

  async getSession(idHash: string, now: number): Promise<string | undefined> {
    if (!isRowKey(idHash)) return undefined;
    const row = await this.knex('sessions').where({ id_hash: idHash }).where('expires_at', '>', now).first<Row | undefined>('data');
    return row ? String(row.data) : undefined;
  }

  async setSession(idHash: string, data: string, expiresAt: number, userId: number | null, meta?: SessionMeta | null): Promise<void> {
    const row: Row = { id_hash: idHash, data, expires_at: expiresAt, user_id: userId };
    if (meta) {
      Object.assign(row, { public_id: meta.publicId, started_at: meta.startedAt, last_seen_at: meta.lastSeenAt, user_agent: meta.userAgent });
    } else {
      Object.assign(row, { public_id: null, started_at: null, last_seen_at: null, user_agent: null });
    }
    await this.knex('sessions').insert(row).onConflict('id_hash').merge();
  }

  async listUserSessions(userId: number, now: number): Promise<SessionMeta[]> {
    if (!isRowId(userId)) return [];
    const rows = await this.knex('sessions')
      .where({ user_id: userId })
      .where('expires_at', '>', now)
      .whereNotNull('public_id')
      .orderBy([{ column: 'last_seen_at', order: 'desc' }, { column: 'public_id' }])
      .select<Row[]>('public_id', 'started_at', 'last_seen_at', 'user_agent');
    return rows.map(toSessionMeta);
  }

  async deleteUserSession(userId: number, publicId: string): Promise<boolean> {
    if (!isRowId(userId) || !isRowKey(publicId)) return false;
    return (await this.knex('sessions').where({ user_id: userId, public_id: publicId }).delete()) === 1;
  }

  async deleteUserSessions(userId: number, exceptIdHash?: string): Promise<number> {
    if (!isRowId(userId)) return 0;
    const query = this.knex('sessions').where({ user_id: userId });
    // A hash no session can have excepts none.
    if (exceptIdHash !== undefined && isRowKey(exceptIdHash)) query.whereNot({ id_hash: exceptIdHash });
    return query.delete();
  }

  async deleteSession(idHash: string): Promise<void> {
    if (!isRowKey(idHash)) return;
    await this.knex('sessions').where({ id_hash: idHash }).delete();
  }

  // SignInStore

  async recordSignIn(userId: number, signIn: SignInRecord, keep: number): Promise<void> {
    if (!isRowId(userId)) return;
    await this.knex.transaction(async (trx) => {
      await trx('sign_ins').insert({ user_id: userId, at: signIn.at, ip: signIn.ip, user_agent: signIn.userAgent });
      const kept = trx('sign_ins').select('id').where({ user_id: userId }).orderBy([{ column: 'at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(keep);
      await trx('sign_ins').where({ user_id: userId }).whereNotIn('id', kept).delete();
    });
  }

  async listSignIns(userId: number, limit: number): Promise<SignInRecord[]> {
    if (!isRowId(userId)) return [];
    const rows = (await this.knex('sign_ins')
      .where({ user_id: userId })
      .orderBy([{ column: 'at', order: 'desc' }, { column: 'id', order: 'desc' }])
      .limit(limit)) as Row[];
    return rows.map(toSignIn);
  }

  // PasskeyStore

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

  async deletePasskey(userId: number, id: number): Promise<boolean> {
    if (!isRowId(userId) || !isRowId(id)) return false;
    return (await this.knex('passkeys').where({ id, user_id: userId }).delete()) === 1;
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
  // SecondFactorStore

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

  async confirmTotp(userId: number, secretJwe: string, step: number, now: number, recoveryCodeHashes: readonly string[]): Promise<boolean> {
    if (!isRowId(userId) || !isRowKey(secretJwe)) return false;
    return this.knex.transaction(async (trx) => {
      const claimed = await trx('totp_factors')
        .where({ user_id: userId, secret_jwe: secretJwe })
        .whereNull('confirmed_at')
        .update({ confirmed_at: now, last_step: step });
      if (claimed !== 1) return false;
      await this.writeRecoveryCodes(trx, userId, recoveryCodeHashes, now);
      return true;
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

  async deleteTotp(userId: number): Promise<boolean> {
    if (!isRowId(userId)) return false;
    return this.knex.transaction(async (trx) => {
      await trx('recovery_codes').where({ user_id: userId }).delete();
      return (await trx('totp_factors').where({ user_id: userId }).delete()) === 1;
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

  async deleteFactors(userId: number): Promise<{ passkeys: number; totp: boolean }> {
    if (!isRowId(userId)) return { passkeys: 0, totp: false };
    return this.knex.transaction(async (trx) => {
      const passkeys = await trx('passkeys').where({ user_id: userId }).delete();
      await trx('recovery_codes').where({ user_id: userId }).delete();
      const totp = (await trx('totp_factors').where({ user_id: userId }).delete()) === 1;
      return { passkeys, totp };
    });
  }

  // ModerationStore

  async suspendUser(userId: number, suspension: SuspensionRecord, action: NewModerationAction): Promise<boolean> {
    if (!isRowId(userId)) return false;
    return this.knex.transaction(async (trx) => {
      const changed = await trx('users')
        .where({ id: userId })
        .update({ suspension_reason: suspension.reason, suspended_at: suspension.since, suspended_until: suspension.until });
      if (changed !== 1) return false;
      const now = suspension.since;
      await trx('sessions').where({ user_id: userId }).delete();
      await trx('access_tokens').where({ user_id: userId }).whereNull('revoked_at').where('expires_at', '>', now).update({ revoked_at: now });
      // Deleted, not marked used: a redemption of a used code counts as a replay.
      await trx('auth_codes').where({ user_id: userId }).whereNull('used_at').delete();
      await trx('moderation_actions').insert(moderationActionRow(action));
      return true;
    });
  }

  async liftSuspension(userId: number, now: number, action: NewModerationAction): Promise<boolean> {
    if (!isRowId(userId)) return false;
    return this.knex.transaction(async (trx) => {
      const changed = await trx('users')
        .where({ id: userId })
        .whereNotNull('suspended_at')
        .whereRaw('(suspended_until is null or suspended_until > ?)', [now])
        .update({ suspension_reason: null, suspended_at: null, suspended_until: null });
      if (changed !== 1) return false;
      await trx('moderation_actions').insert(moderationActionRow(action));
      return true;
    });
  }

  async hideBio(userId: number, action: NewModerationAction): Promise<boolean> {
    if (!isRowId(userId)) return false;
    return this.knex.transaction(async (trx) => {
      const changed = await trx('users')
        .where({ id: userId })
        .whereNot({ bio: '' })
        .update({ bio: '', bio_removed_reason: action.reason ?? '', bio_removed_at: action.createdAt });
      if (changed !== 1) return false;
      await trx('moderation_actions').insert(moderationActionRow(action));
      return true;
    });
  }

  async setModLevel(userId: number, modLevel: number, action: NewModerationAction): Promise<boolean> {
    if (!isRowId(userId)) return false;
    return this.knex.transaction(async (trx) => {
      if ((await trx('users').where({ id: userId }).update({ mod_level: modLevel })) !== 1) return false;
      await trx('moderation_actions').insert(moderationActionRow(action));
      return true;
    });
  }

  async addModerationAction(action: NewModerationAction): Promise<ModerationActionRecord> {
    const [row] = await this.knex('moderation_actions').insert(moderationActionRow(action)).returning<Row[]>('id');
    return { id: num(row!.id), ...action };
  }

  async listModerationActions(filter: { targetId?: number; limit?: number }): Promise<ModerationActionRecord[]> {
    const query = this.knex('moderation_actions').orderBy('id', 'desc');
    if (filter.targetId !== undefined) {
      if (!isRowId(filter.targetId)) return [];
      query.where({ target_id: filter.targetId });
    }
    if (filter.limit !== undefined) query.limit(filter.limit);
    return ((await query) as Row[]).map(toModerationAction);
  }

  private reportsQuery() {
    return this.knex('reports as r')
      .join('users as rep', 'rep.id', 'r.reporter_id')
      .join('users as tgt', 'tgt.id', 'r.target_id')
      .leftJoin('users as mod', 'mod.id', 'r.closed_by')
      .select('r.*', 'rep.name as reporter_name', 'tgt.name as target_name', 'mod.name as closed_by_name');
  }

  async createReport(report: NewReport): Promise<ReportRecord> {
    try {
      const [row] = await this.knex('reports')
        .insert({
          reporter_id: report.reporterId,
          target_id: report.targetId,
          reason: report.reason,
          text: report.text,
          created_at: report.createdAt,
        })
        .returning<Row[]>('id');
      return (await this.getReport(num(row!.id)))!;
    } catch (err) {
      const field = uniqueField(err);
      if (field) throw new UniqueViolation(field);
      throw err;
    }
  }

  async getReport(id: number): Promise<ReportRecord | undefined> {
    if (!isRowId(id)) return undefined;
    const row = (await this.reportsQuery().where('r.id', id).first()) as Row | undefined;
    return row && toReport(row);
  }

  async listOpenReports(targetId?: number): Promise<ReportRecord[]> {
    const query = this.reportsQuery().whereNull('r.closed_at');
    if (targetId !== undefined) {
      if (!isRowId(targetId)) return [];
      query.where('r.target_id', targetId);
    }
    const rows = (await query.orderBy([{ column: 'r.created_at' }, { column: 'r.id' }])) as Row[];
    return rows.map(toReport);
  }

  async closeReport(id: number, closedBy: number, outcome: ReportOutcome, action: NewModerationAction): Promise<boolean> {
    if (!isRowId(id)) return false;
    return this.knex.transaction(async (trx) => {
      const changed = await trx('reports')
        .where({ id })
        .whereNull('closed_at')
        .update({ closed_at: action.createdAt, closed_by: closedBy, outcome });
      if (changed !== 1) return false;
      await trx('moderation_actions').insert(moderationActionRow(action));
      return true;
    });
  }

  async findUsers(query: { id: number } | { prefix: string }, now: number, limit: number): Promise<ModerationUserSummaryRecord[]> {
    const openReports = this.knex('reports').count('*').whereNull('closed_at').whereRaw('reports.target_id = users.id').as('open_reports');
    const q = this.knex('users').select('id', 'name', 'mod_level', 'suspended_at', 'suspended_until', openReports);
    if ('id' in query) {
      if (!isRowId(query.id)) return [];
      q.where({ id: query.id });
    } else {
      if (!isRowKey(query.prefix)) return [];
      const escaped = query.prefix.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`);
      q.whereRaw("name_key like ? escape '\\'", [`${escaped}%`]);
    }
    const rows = (await q.orderBy('name_key').limit(limit)) as Row[];
    return rows.map((r) => ({
      id: num(r.id),
      name: String(r.name),
      modLevel: num(r.mod_level),
      suspended: r.suspended_at !== null && (r.suspended_until === null || num(r.suspended_until) > now),
      openReports: num(r.open_reports),
    }));
  }

  // PictureRowStore (PostgreSQL only: src/pictures/pictures.ts, DatabasePictures)

  async insertPictures(userId: number, ts: number, images: Record<string, Buffer>, now: number): Promise<boolean> {
    const rows = Object.entries(images).map(([size, bytes]) => ({ user_id: userId, ts, size, bytes, created_at: now }));
    try {
      // One statement: all sizes land together, or none do.
      await this.knex('pictures').insert(rows);
      return true;
    } catch (err) {
      // The primary key (user, timestamp, size) is taken: another writer has this timestamp.
      const code = (err as { code?: string }).code;
      if (code === '23505' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return false;
      throw err;
    }
  }

  async getPicture(userId: number, ts: number, size: string): Promise<Buffer | undefined> {
    if (!isRowId(userId)) return undefined;
    const row = (await this.knex('pictures').select('bytes').where({ user_id: userId, ts, size }).first()) as Row | undefined;
    return row ? (row.bytes as Buffer) : undefined;
  }

  async deletePictures(userId: number, ts: number): Promise<void> {
    await this.knex('pictures').where({ user_id: userId, ts }).delete();
  }

  async sweepPictures(before: number): Promise<number> {
    return this.knex('pictures')
      .where('created_at', '<', before)
      .whereNotExists(this.knex('users').select(this.knex.raw('1')).whereRaw('users.id = pictures.user_id and users.pfp_timestamp = pictures.ts'))
      .delete();
  }

  async usersWithoutPictureRows(): Promise<{ id: number; pfpTimestamp: number }[]> {
    const rows = (await this.knex('users')
      .select('id', 'pfp_timestamp')
      .whereNotNull('pfp_timestamp')
      .whereNotExists(this.knex('pictures').select(this.knex.raw('1')).whereRaw('pictures.user_id = users.id and pictures.ts = users.pfp_timestamp'))
      .orderBy('id')) as Row[];
    return rows.map((r) => ({ id: num(r.id), pfpTimestamp: num(r.pfp_timestamp) }));
  }
}
