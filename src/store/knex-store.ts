import fs from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { RateLimiterPostgres, RateLimiterSQLite, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { migrationSource } from './migrations/index.js';
import { SqliteReads } from './sqlite-reads.js';
import {
  UniqueViolation,
  type AppRecord,
  type CodeRecord,
  type GameRecord,
  type GameWithAuthor,
  type NewGame,
  type NewUser,
  type PublicUserRecord,
  type PurgeBatch,
  type PurgeCounts,
  type RateLimitRule,
  type Store,
  type TokenRecord,
  type TokenWithUser,
  type UserPatch,
  type UserRecord,
} from './types.js';

type Row = Record<string, unknown>;

/** The SQLite file a DATABASE_URL names (a path, `file:<path>` or `:memory:`), or undefined for PostgreSQL. */
export function sqliteFile(databaseUrl: string): string | undefined {
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) return undefined;
  return databaseUrl.replace(/^file:(\/\/)?/, '').replace(/^sqlite:(\/\/)?/, '');
}

/** Knex config for a DATABASE_URL. */
export function knexConfig(databaseUrl: string): Knex.Config {
  const filename = sqliteFile(databaseUrl);
  if (filename === undefined) {
    return { client: 'pg', connection: databaseUrl, pool: { min: 0, max: 10 } };
  }
  if (filename !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(filename)), { recursive: true });
  return {
    client: 'better-sqlite3',
    connection: { filename },
    useNullAsDefault: true,
    pool: {
      // better-sqlite3 is synchronous: one connection serialises every statement and transaction.
      min: 1,
      max: 1,
      afterCreate(conn: { pragma(sql: string): unknown }, done: (err: Error | null, conn: unknown) => void) {
        conn.pragma('journal_mode = WAL');
        conn.pragma('synchronous = NORMAL');
        conn.pragma('foreign_keys = ON');
        conn.pragma('busy_timeout = 5000');
        done(null, conn);
      },
    },
  };
}

const num = (v: unknown): number => Number(v);
/**
 * Whether an id can name a row: ids are 32-bit integer columns (`increments`), and PostgreSQL
 * refuses to compare one with a larger number (an error, not "no row"), so such ids find nothing.
 */
/** PostgreSQL text cannot hold NUL: a key containing one names no row (instead of a driver error). */
const hasNul = (...values: string[]): boolean => values.some((v) => v.includes('\u0000'));
const isRowId = (id: number): boolean => Number.isInteger(id) && id >= 1 && id <= 2_147_483_647;
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const scopesOf = (v: unknown): string[] => (typeof v === 'string' && v !== '' ? v.split(' ') : []);

function toUser(r: Row): UserRecord {
  return {
    ...toPublicUserRecord(r),
    email: String(r.email),
    passwordHash: String(r.password_hash),
    pfpHighWater: num(r.pfp_high_water),
    createdAt: num(r.created_at),
  };
}

/** What whois reads: the token's columns it checks and the user's it answers with. */
const TOKEN_WITH_USER_COLUMNS = [
  't.client_id',
  't.user_id',
  't.scopes',
  't.expires_at',
  't.revoked_at',
  't.created_at',
  'u.name as user_name',
  'u.email as user_email',
  'u.pfp_timestamp as user_pfp_timestamp',
];

/** The users columns behind PublicUserRecord. */
const PUBLIC_USER_COLUMNS = ['id', 'name', 'bio', 'flairs', 'equipped_flair', 'play_minutes', 'last_heartbeat', 'mod_level', 'pfp_timestamp'];

function toPublicUserRecord(r: Row): PublicUserRecord {
  return {
    id: num(r.id),
    name: String(r.name),
    bio: String(r.bio),
    flairs: JSON.parse(String(r.flairs)) as string[],
    equippedFlair: String(r.equipped_flair),
    playMinutes: num(r.play_minutes),
    lastHeartbeat: num(r.last_heartbeat),
    modLevel: num(r.mod_level),
    pfpTimestamp: numOrNull(r.pfp_timestamp),
  };
}

function toApp(r: Row): AppRecord {
  return {
    clientId: String(r.client_id),
    secretHash: String(r.secret_hash),
    ownerId: num(r.owner_id),
    name: String(r.name),
    redirectUris: JSON.parse(String(r.redirect_uris)) as string[],
    createdAt: num(r.created_at),
  };
}

function toCode(r: Row): CodeRecord {
  return {
    codeHash: String(r.code_hash),
    clientId: String(r.client_id),
    userId: num(r.user_id),
    scopes: scopesOf(r.scopes),
    redirectUri: (r.redirect_uri as string | null) ?? null,
    codeChallenge: (r.code_challenge as string | null) ?? null,
    expiresAt: num(r.expires_at),
    usedAt: numOrNull(r.used_at),
    createdAt: num(r.created_at),
  };
}

function toGame(r: Row): GameWithAuthor {
  return {
    id: num(r.id),
    authorId: num(r.author_id),
    title: String(r.title),
    url: String(r.url),
    createdAt: num(r.created_at),
    authorName: String(r.author_name),
  };
}

function tokenRow(t: TokenRecord): Row {
  return {
    token_hash: t.tokenHash,
    client_id: t.clientId,
    user_id: t.userId,
    scopes: t.scopes.join(' '),
    code_hash: t.codeHash,
    expires_at: t.expiresAt,
    revoked_at: t.revokedAt,
    created_at: t.createdAt,
  };
}

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
  if (column?.includes('email')) return 'email';
  return 'value';
}

export class KnexStore implements Store {
  /** Prepared-statement reads, on a SQLite file once it is migrated. */
  private reads: SqliteReads | undefined;

  constructor(
    readonly knex: Knex,
    private readonly sqlitePath?: string,
  ) {}

  static open(databaseUrl: string): KnexStore {
    return new KnexStore(knexFactory(knexConfig(databaseUrl)), sqliteFile(databaseUrl));
  }

  async migrate(): Promise<void> {
    await this.knex.migrate.latest({ migrationSource });
    if (this.sqlitePath && this.sqlitePath !== ':memory:' && !this.reads) this.reads = new SqliteReads(this.sqlitePath, PUBLIC_USER_COLUMNS, TOKEN_WITH_USER_COLUMNS);
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
    return this.sqlitePath === undefined ? new RateLimiterPostgres(opts) : new RateLimiterSQLite(opts);
  }

  async ping(): Promise<void> {
    await this.knex.raw('select 1');
  }

  async close(): Promise<void> {
    this.reads?.close();
    this.reads = undefined;
    await this.knex.destroy();
  }

  async countUsers(): Promise<number> {
    const row = (await this.knex('users').count({ n: '*' }).first()) as Row | undefined;
    return num(row?.n ?? 0);
  }

  async createUser(user: NewUser, now: number): Promise<UserRecord> {
    try {
      const [row] = await this.knex('users')
        .insert({
          name: user.name,
          name_key: user.name.toLowerCase(),
          email: user.email,
          password_hash: user.passwordHash,
          created_at: now,
        })
        .returning('*');
      return toUser(row as Row);
    } catch (err) {
      const field = uniqueField(err);
      if (field) throw new UniqueViolation(field);
      throw err;
    }
  }

  async getUser(id: number): Promise<UserRecord | undefined> {
    if (!isRowId(id)) return undefined;
    const row = this.reads ? this.reads.user(id) : ((await this.knex('users').where({ id }).first()) as Row | undefined);
    return row && toUser(row);
  }

  async getPublicUser(id: number): Promise<PublicUserRecord | undefined> {
    if (!isRowId(id)) return undefined;
    const row = this.reads
      ? this.reads.publicUser(id)
      : ((await this.knex('users').select(PUBLIC_USER_COLUMNS).where({ id }).first()) as Row | undefined);
    return row && toPublicUserRecord(row);
  }

  async getUserByName(name: string): Promise<UserRecord | undefined> {
    if (hasNul(name)) return undefined;
    const row = (await this.knex('users').where({ name_key: name.toLowerCase() }).first()) as Row | undefined;
    return row && toUser(row);
  }

  async getUserByEmail(email: string): Promise<UserRecord | undefined> {
    if (hasNul(email)) return undefined;
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
    if (patch.bio !== undefined) row.bio = patch.bio;
    if (patch.flairs !== undefined) row.flairs = JSON.stringify(patch.flairs);
    if (patch.equippedFlair !== undefined) row.equipped_flair = patch.equippedFlair;
    if (patch.playMinutes !== undefined) row.play_minutes = patch.playMinutes;
    if (patch.lastHeartbeat !== undefined) row.last_heartbeat = patch.lastHeartbeat;
    if (patch.modLevel !== undefined) row.mod_level = patch.modLevel;
    if (Object.keys(row).length > 0) await this.knex('users').where({ id }).update(row);
    return this.getUser(id);
  }

  async swapPfpTimestamp(id: number, expected: number | null, next: number | null): Promise<boolean> {
    if (!isRowId(id)) return false;
    const query = this.knex('users').where({ id });
    if (expected === null) query.whereNull('pfp_timestamp');
    else query.where({ pfp_timestamp: expected });
    // Callers pick `next` above the high-water mark, so it becomes the new mark.
    const row: Row = next === null ? { pfp_timestamp: null } : { pfp_timestamp: next, pfp_high_water: next };
    return (await query.update(row)) === 1;
  }

  async createApp(app: AppRecord): Promise<void> {
    await this.knex('apps').insert({
      client_id: app.clientId,
      secret_hash: app.secretHash,
      owner_id: app.ownerId,
      name: app.name,
      redirect_uris: JSON.stringify(app.redirectUris),
      created_at: app.createdAt,
    });
  }

  async getApp(clientId: string): Promise<AppRecord | undefined> {
    if (hasNul(clientId)) return undefined;
    const row = this.reads ? this.reads.app(clientId) : ((await this.knex('apps').where({ client_id: clientId }).first()) as Row | undefined);
    return row && toApp(row);
  }

  async listAppsByOwner(ownerId: number): Promise<AppRecord[]> {
    if (!isRowId(ownerId)) return [];
    const rows = (await this.knex('apps').where({ owner_id: ownerId }).orderBy([{ column: 'created_at' }, { column: 'client_id' }])) as Row[];
    return rows.map(toApp);
  }

  async setAppSecret(clientId: string, secretHash: string): Promise<boolean> {
    if (hasNul(clientId)) return false;
    return (await this.knex('apps').where({ client_id: clientId }).update({ secret_hash: secretHash })) === 1;
  }

  async deleteApp(clientId: string): Promise<boolean> {
    if (hasNul(clientId)) return false;
    return this.knex.transaction(async (trx) => {
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
      expires_at: code.expiresAt,
      used_at: code.usedAt,
      created_at: code.createdAt,
    });
  }

  async getCode(codeHash: string): Promise<CodeRecord | undefined> {
    const row = this.reads ? this.reads.code(codeHash) : ((await this.knex('auth_codes').where({ code_hash: codeHash }).first()) as Row | undefined);
    return row && toCode(row);
  }

  async redeemCode(codeHash: string, now: number, token: TokenRecord): Promise<boolean> {
    return this.knex.transaction(async (trx) => {
      const claimed = await trx('auth_codes')
        .where({ code_hash: codeHash })
        .whereNull('used_at')
        .where('expires_at', '>', now)
        .update({ used_at: now });
      if (claimed !== 1) return false;
      await trx('access_tokens').insert(tokenRow(token));
      return true;
    });
  }

  async revokeTokensOfCode(codeHash: string, now: number): Promise<number> {
    return this.knex('access_tokens')
      .where({ code_hash: codeHash })
      .whereNull('revoked_at')
      .update({ revoked_at: now });
  }

  async getTokenWithUser(tokenHash: string): Promise<TokenWithUser | undefined> {
    const row = this.reads ? this.reads.token(tokenHash) : await this.tokenWithUserQuery(tokenHash);
    if (!row) return undefined;
    return {
      token: {
        clientId: String(row.client_id),
        userId: num(row.user_id),
        scopes: scopesOf(row.scopes),
        expiresAt: num(row.expires_at),
        revokedAt: numOrNull(row.revoked_at),
        createdAt: num(row.created_at),
      },
      user: {
        id: num(row.user_id),
        name: String(row.user_name),
        email: String(row.user_email),
        pfpTimestamp: numOrNull(row.user_pfp_timestamp),
      },
    };
  }

  async revokeToken(tokenHash: string, clientId: string, now: number): Promise<boolean> {
    if (hasNul(tokenHash, clientId)) return false;
    const changed = await this.knex('access_tokens')
      .where({ token_hash: tokenHash, client_id: clientId })
      .whereNull('revoked_at')
      .update({ revoked_at: now });
    return changed === 1;
  }

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
    if (this.sqlitePath === undefined) {
      const victims = this.knex(table).select(key).where('expires_at', '<=', expiredBy).limit(limit).forUpdate().skipLocked();
      return this.knex(table).whereIn(key, victims).delete();
    }
    // SQLite: by rowid, half the time of going through the text primary key (measured: 17 ms
    // against 36 ms per 1000 tokens), and better-sqlite3 blocks the event loop for all of it.
    const victims = this.knex(table).select('rowid').where('expires_at', '<=', expiredBy).limit(limit);
    return this.knex(table).whereIn('rowid', victims).delete();
  }

  private async tokenWithUserQuery(tokenHash: string): Promise<Row | undefined> {
    return (await this.knex('access_tokens as t')
      .join('users as u', 'u.id', 't.user_id')
      .where('t.token_hash', tokenHash)
      .first(TOKEN_WITH_USER_COLUMNS)) as Row | undefined;
  }

  async createGame(game: NewGame): Promise<GameRecord> {
    const [row] = (await this.knex('games')
      .insert({ author_id: game.authorId, title: game.title, url: game.url, created_at: game.createdAt })
      .returning('id')) as Row[];
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

  async getSession(idHash: string, now: number): Promise<string | undefined> {
    const row = (await this.knex('sessions').where({ id_hash: idHash }).where('expires_at', '>', now).first('data')) as Row | undefined;
    return row ? String(row.data) : undefined;
  }

  async setSession(idHash: string, data: string, expiresAt: number, userId: number | null): Promise<void> {
    await this.knex('sessions').insert({ id_hash: idHash, data, expires_at: expiresAt, user_id: userId }).onConflict('id_hash').merge();
  }

  async deleteUserSessions(userId: number, exceptIdHash?: string): Promise<number> {
    const query = this.knex('sessions').where({ user_id: userId });
    if (exceptIdHash !== undefined) query.whereNot({ id_hash: exceptIdHash });
    return query.delete();
  }

  async deleteSession(idHash: string): Promise<void> {
    await this.knex('sessions').where({ id_hash: idHash }).delete();
  }

  async deleteExpiredSessions(now: number): Promise<number> {
    return this.knex('sessions').where('expires_at', '<=', now).delete();
  }
}
