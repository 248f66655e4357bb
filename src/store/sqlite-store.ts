import Database from 'better-sqlite3';
import type { Knex } from 'knex';
import {
  KnexStore,
  PUBLIC_USER_COLUMNS,
  TOKEN_WITH_USER_COLUMNS,
  hasNul,
  isRowId,
  toApp,
  toCode,
  toPublicUserRecord,
  toTokenWithUser,
  toUser,
} from './knex-store.js';
import type { AppRecord, CodeRecord, PublicUserRecord, TokenRecord, TokenWithUser, UserRecord } from './types.js';

type Row = Record<string, unknown>;

/**
 * The token exchange's and revocation's writes as prepared statements on knex's own (single) writer connection:
 * the claim of the code and the token insert in one IMMEDIATE transaction, and the replay path's
 * revocation. better-sqlite3 runs a transaction start to end within one synchronous call, so no
 * other request's statement can come between the claim and the insert, and exactly one of any
 * number of concurrent redemptions of a code sees `used_at is null`.
 */
class Writes {
  readonly claim: Database.Statement<[number, string, number]>;
  readonly insertToken: Database.Statement<[Row]>;
  readonly revokeOfCode: Database.Statement<[number, string]>;
  readonly revokeOne: Database.Statement<[number, string, string]>;
  readonly redeem: Database.Transaction<(codeHash: string, now: number, token: Row) => boolean>;

  constructor(readonly db: Database.Database) {
    this.claim = db.prepare('update auth_codes set used_at = ? where code_hash = ? and used_at is null and expires_at > ?');
    this.insertToken = db.prepare(
      'insert into access_tokens (token_hash, client_id, user_id, scopes, code_hash, expires_at, revoked_at, created_at) ' +
        'values (@token_hash, @client_id, @user_id, @scopes, @code_hash, @expires_at, @revoked_at, @created_at)',
    );
    this.revokeOfCode = db.prepare('update access_tokens set revoked_at = ? where code_hash = ? and revoked_at is null');
    this.revokeOne = db.prepare('update access_tokens set revoked_at = ? where token_hash = ? and client_id = ? and revoked_at is null');
    this.redeem = db.transaction((codeHash: string, now: number, token: Row) => {
      if (this.claim.run(now, codeHash, now).changes !== 1) return false;
      this.insertToken.run(token);
      return true;
    });
  }
}

/** The prepared statements of the hot reads, on their own read-only connection. */
class Reads {
  readonly db: Database.Database;
  readonly user: Database.Statement<[number], Row>;
  readonly publicUser: Database.Statement<[number], Row>;
  readonly app: Database.Statement<[string], Row>;
  readonly code: Database.Statement<[string], Row>;
  readonly tokenWithUser: Database.Statement<[string], Row>;

  constructor(filename: string) {
    this.db = new Database(filename, { readonly: true, fileMustExist: true });
    this.db.pragma('busy_timeout = 5000');
    // Read through a memory map (no read() call per page) with a larger page cache: lookups in a
    // table of a million users then cost about what they cost in one of a thousand.
    this.db.pragma('mmap_size = 1073741824');
    this.db.pragma('cache_size = -65536');
    this.user = this.db.prepare('select * from users where id = ?');
    this.publicUser = this.db.prepare(`select ${PUBLIC_USER_COLUMNS.join(', ')} from users where id = ?`);
    this.app = this.db.prepare('select * from apps where client_id = ?');
    this.code = this.db.prepare('select * from auth_codes where code_hash = ?');
    this.tokenWithUser = this.db.prepare(
      `select ${TOKEN_WITH_USER_COLUMNS.join(', ')} from access_tokens t join users u on u.id = t.user_id where t.token_hash = ?`,
    );
  }
}

/**
 * The Store on a SQLite file: the knex store with exactly five reads (users/info, whois, the
 * pictures' user, and the token exchange's app and code) answered by prepared better-sqlite3
 * statements, about a third of the cost of the same read through knex
 * (docs/decisions.md#one-data-path-per-database), and the token exchange's and revocation's writes
 * (redemption, the replay's revocation, RFC 7009 revocation) as prepared statements on knex's writer connection (docs/performance.md).
 * Everything else is KnexStore's.
 *
 * The statements run on a second, read-only connection. The database is in WAL mode, so each of
 * them sees every commit made before it through knex: a change is visible to the very next request.
 */
export class SqliteStore extends KnexStore {
  /** Opened on the first read: the tables exist only once the store has been migrated. */
  private statements: Reads | undefined;

  constructor(knex: Knex, filename: string) {
    super(knex, filename);
  }

  /** Prepared on the first exchange, on the connection knex's pool of one holds. */
  private writes: Writes | undefined;

  private get reads(): Reads {
    this.statements ??= new Reads(this.sqlitePath as string);
    return this.statements;
  }

  /** Prepares the writer's statements on the connection knex's pool of one holds. */
  private async prepareWrites(): Promise<Writes> {
    const client = (this.knex as unknown as { client: { acquireConnection(): Promise<Database.Database>; releaseConnection(c: unknown): Promise<unknown> } }).client;
    const db = await client.acquireConnection();
    try {
      this.writes ??= new Writes(db);
    } finally {
      await client.releaseConnection(db);
    }
    return this.writes;
  }

  /**
   * Whether the writer can run a statement of its own now. Not while a knex transaction is open
   * on that connection (between its BEGIN and COMMIT, across awaits): a statement run then would
   * join that transaction and share its fate, so the caller takes knex's queue instead. Checked
   * in the same synchronous step as the statement runs, so nothing can start in between.
   */
  private static free(writes: Writes): boolean {
    return writes.db.open && !writes.db.inTransaction;
  }

  override async redeemCode(codeHash: string, now: number, token: TokenRecord): Promise<boolean> {
    const writes = this.writes ?? (await this.prepareWrites());
    if (!SqliteStore.free(writes)) return super.redeemCode(codeHash, now, token);
    return writes.redeem.immediate(codeHash, now, {
      token_hash: token.tokenHash,
      client_id: token.clientId,
      user_id: token.userId,
      scopes: token.scopes.join(' '),
      code_hash: token.codeHash,
      expires_at: token.expiresAt,
      revoked_at: token.revokedAt,
      created_at: token.createdAt,
    });
  }

  override async revokeTokensOfCode(codeHash: string, now: number): Promise<number> {
    const writes = this.writes ?? (await this.prepareWrites());
    if (!SqliteStore.free(writes)) return super.revokeTokensOfCode(codeHash, now);
    return writes.revokeOfCode.run(now, codeHash).changes;
  }

  override async revokeToken(tokenHash: string, clientId: string, now: number): Promise<boolean> {
    const writes = this.writes ?? (await this.prepareWrites());
    if (!SqliteStore.free(writes)) return super.revokeToken(tokenHash, clientId, now);
    return writes.revokeOne.run(now, tokenHash, clientId).changes === 1;
  }

  override async close(): Promise<void> {
    this.statements?.db.close();
    this.statements = undefined;
    this.writes = undefined;
    await super.close();
  }

  override async getUser(id: number): Promise<UserRecord | undefined> {
    if (!isRowId(id)) return undefined;
    const row = this.reads.user.get(id);
    return row && toUser(row);
  }

  override async getPublicUser(id: number): Promise<PublicUserRecord | undefined> {
    if (!isRowId(id)) return undefined;
    const row = this.reads.publicUser.get(id);
    return row && toPublicUserRecord(row);
  }

  override async getApp(clientId: string): Promise<AppRecord | undefined> {
    if (hasNul(clientId)) return undefined;
    const row = this.reads.app.get(clientId);
    return row && toApp(row);
  }

  /** Only a first look: redeeming stays a conditional update in a transaction on the writer. */
  override async getCode(codeHash: string): Promise<CodeRecord | undefined> {
    const row = this.reads.code.get(codeHash);
    return row && toCode(row);
  }

  override async getTokenWithUser(tokenHash: string): Promise<TokenWithUser | undefined> {
    const row = this.reads.tokenWithUser.get(tokenHash);
    return row && toTokenWithUser(row);
  }
}
