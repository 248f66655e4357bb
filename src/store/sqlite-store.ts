import Database from 'better-sqlite3';
import type { Knex } from 'knex';
import { startCheckpointer, WRITER_AUTOCHECKPOINT_PAGES, type Checkpointer } from './checkpointer.js';
import { KnexStore } from './knex-store.js';
import { isUnavailableError } from './outage.js';
import { CODE_WITH_USER_SQL, TOKEN_WITH_USER_COLUMNS, toApp, toCode, tokenRow, toTokenWithUser } from './apps/rows.js';
import { isRowId, isRowKey, numOrNull, type Row } from './rows.js';
import { PUBLIC_USER_COLUMNS, toPublicUserRecord, toUser } from './users/rows.js';
import { EXPIRED, REDEEMED, type AppRecord, type CodeRecord, type Redemption, type TokenRecord, type TokenWithUser } from '../domain/apps.js';
import type { PublicUserRecord, UserRecord } from '../domain/users.js';

interface QueuedWrite {
  write: () => unknown;
  fallback: () => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * The token exchange's and revocation's writes as prepared statements on knex's own (single)
 * writer connection, committed in groups: every such write asked for while the event loop polls
 * its sockets is run at the end of that turn (setImmediate) in one IMMEDIATE transaction, each in
 * a savepoint of its own, and each caller is answered only after the group's COMMIT. The commit
 * (writing the changed pages to the WAL) is most of a write's cost, and a group shares one.
 *
 * better-sqlite3 runs a transaction start to end within one synchronous call, so no other
 * request's statement comes between a claim and its insert, and exactly one of any number of
 * concurrent redemptions of a code sees `used_at is null`. A write that fails is rolled back to its
 * savepoint and fails alone; an outage (a locked or full file) fails the whole group, unmapped
 * here, so the outage guard answers 503.
 *
 * The exchange's reads of the app and the code are prepared here too (SqliteStore.getApp).
 */
class Writes {
  readonly claim: Database.Statement<[number, string, string, number]>;
  readonly insertToken: Database.Statement<[Row]>;
  readonly revokeOfCode: Database.Statement<[number, string]>;
  readonly unusedCode: Database.Statement<[string], Row>;
  readonly revokeOne: Database.Statement<[number, string, string]>;
  readonly app: Database.Statement<[string], Row>;
  readonly code: Database.Statement<[string], Row>;
  private readonly group: Database.Transaction<(items: QueuedWrite[], outcomes: Outcome[]) => void>;
  private readonly savepoint: Database.Transaction<(write: () => unknown) => unknown>;
  private queue: QueuedWrite[] = [];

  constructor(readonly db: Database.Database) {
    this.claim = db.prepare('update auth_codes set used_at = ?, token_hash = ? where code_hash = ? and used_at is null and expires_at > ?');
    this.insertToken = db.prepare(
      'insert into access_tokens (token_hash, client_id, user_id, scopes, code_hash, expires_at, revoked_at, created_at) ' +
        'values (@token_hash, @client_id, @user_id, @scopes, @code_hash, @expires_at, @revoked_at, @created_at)',
    );
    // The code's row names its token (migration 009): no index of tokens by code to keep up.
    this.revokeOfCode = db.prepare(
      'update access_tokens set revoked_at = ? where token_hash = (select token_hash from auth_codes where code_hash = ?) and revoked_at is null',
    );
    this.unusedCode = db.prepare('select code_hash from auth_codes where code_hash = ? and used_at is null');
    this.revokeOne = db.prepare('update access_tokens set revoked_at = ? where token_hash = ? and client_id = ? and revoked_at is null');
    this.app = db.prepare('select * from apps where client_id = ?');
    this.code = db.prepare(CODE_WITH_USER_SQL);
    // Called inside `group`, a transaction function runs as a savepoint.
    this.savepoint = db.transaction((write: () => unknown) => write());
    this.group = db.transaction((items: QueuedWrite[], outcomes: Outcome[]) => {
      for (const item of items) {
        try {
          outcomes.push({ ok: true, value: this.savepoint(item.write) });
        } catch (error) {
          if (isUnavailableError(error)) throw error;
          outcomes.push({ ok: false, error });
        }
      }
    });
  }

  /**
   * The code's claim and the token's insert; when the claim fails, why: an unused code has
   * expired, a used (or gone) one is a replay, whose tokens are revoked in the same savepoint.
   */
  redeem(codeHash: string, now: number, token: Row): Redemption {
    if (this.claim.run(now, token.token_hash as string, codeHash, now).changes === 1) {
      this.insertToken.run(token);
      return REDEEMED;
    }
    if (this.unusedCode.get(codeHash)) return EXPIRED;
    return { outcome: 'replayed', revokedTokens: this.revokeOfCode.run(now, codeHash).changes };
  }

  /**
   * Whether a statement can run on this connection now: not while a knex transaction is open on
   * it (its uncommitted changes would be read, or a write would join it and share its fate).
   */
  free(): boolean {
    return this.db.open && !this.db.inTransaction;
  }

  /** Runs `write` in the next group; `fallback` (knex's path) if the writer is not free then. */
  enqueue<T>(write: () => T, fallback: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ write, fallback, resolve: resolve as (value: unknown) => void, reject });
      if (this.queue.length === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const items = this.queue;
    this.queue = [];
    // A knex transaction open on this connection (between its BEGIN and COMMIT, across awaits):
    // statements run now would join it and share its fate, so these take knex's queue instead.
    // Checked in the same synchronous step as the group runs, so nothing can start in between.
    if (!this.free()) {
      for (const item of items) item.fallback().then(item.resolve, item.reject);
      return;
    }
    const outcomes: Outcome[] = [];
    try {
      this.group.immediate(items, outcomes);
    } catch (error) {
      for (const item of items) item.reject(error);
      return;
    }
    items.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
  }
}

/** The prepared statements of the hot reads, on their own read-only connection. */
class Reads {
  readonly db: Database.Database;
  readonly user: Database.Statement<[number], Row>;
  readonly publicUser: Database.Statement<[number], Row>;
  readonly pfpTimestamp: Database.Statement<[number], Row>;
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
    this.pfpTimestamp = this.db.prepare('select pfp_timestamp from users where id = ?');
    this.app = this.db.prepare('select * from apps where client_id = ?');
    this.code = this.db.prepare(CODE_WITH_USER_SQL);
    this.tokenWithUser = this.db.prepare(
      `select ${TOKEN_WITH_USER_COLUMNS.join(', ')} from access_tokens t join users u on u.id = t.user_id where t.token_hash = ?`,
    );
  }
}

/**
 * The Store on a SQLite file: the knex store with six hot reads and three hot writes as prepared
 * better-sqlite3 statements, which cost a fraction of the same statement through knex
 * (docs/performance.md#prepared-reads, docs/decisions.md#one-data-path-per-database). Everything
 * else is KnexStore's.
 *
 * - Reads: a user by id (getUser: the signed-in user), its public fields (getPublicUser:
 *   users/info), its pfpTimestamp alone (getPfpTimestamp: the picture route) and a token with its user (getTokenWithUser: whois, introspection,
 *   revocation) on a second, read-only connection; the token exchange's app (getApp) and code
 *   (getCode) on knex's writer connection when it is free, else on the read-only one.
 * - Writes, on knex's writer connection, committed in groups (Writes): a code's redemption
 *   (redeemCode), the revocation of a replayed code's token (revokeTokensOfCode) and RFC 7009
 *   revocation (revokeToken) (docs/performance.md#prepared-statements-on-the-writer-connection).
 *
 * The database is in WAL mode, so the read-only connection sees every commit made before each of
 * its reads: a change is visible to the very next request.
 */
export class SqliteStore extends KnexStore {
  /** Opened on the first read: the tables exist only once the store has been migrated. */
  private statements: Reads | undefined;

  constructor(
    knex: Knex,
    private readonly file: string,
    /** Called once the store is closed (a throwaway database's temporary directory goes: open.ts). */
    private readonly afterClose?: () => void,
  ) {
    super(knex, 'sqlite');
  }

  /** Prepared on first use (an app's or a code's read, or one of the writes). */
  private writes: Writes | undefined;
  /** Started with the writer's statements: a store that never writes this way needs none. */
  private checkpointer: Checkpointer | undefined;

  private get reads(): Reads {
    this.statements ??= new Reads(this.file);
    return this.statements;
  }

  /** Prepares the writer's statements on the connection knex's pool of one holds. */
  private async prepareWrites(): Promise<Writes> {
    const client = (this.knex as unknown as { client: { acquireConnection(): Promise<Database.Database>; releaseConnection(c: unknown): Promise<unknown> } }).client;
    const db = await client.acquireConnection();
    try {
      if (!this.writes) {
        this.writes = new Writes(db);
        this.checkpointer = startCheckpointer(this.file);
        db.pragma(`wal_autocheckpoint = ${WRITER_AUTOCHECKPOINT_PAGES}`);
      }
    } finally {
      await client.releaseConnection(db);
    }
    return this.writes;
  }

  override async redeemCode(codeHash: string, now: number, token: TokenRecord): Promise<Redemption> {
    if (!isRowKey(codeHash)) return { outcome: 'replayed', revokedTokens: 0 };
    const writes = this.writes ?? (await this.prepareWrites());
    const row = tokenRow(token);
    return writes.enqueue(
      () => writes.redeem(codeHash, now, row),
      () => super.redeemCode(codeHash, now, token),
    );
  }

  override async revokeTokensOfCode(codeHash: string, now: number): Promise<number> {
    if (!isRowKey(codeHash)) return 0;
    const writes = this.writes ?? (await this.prepareWrites());
    return writes.enqueue(
      () => writes.revokeOfCode.run(now, codeHash).changes,
      () => super.revokeTokensOfCode(codeHash, now),
    );
  }

  override async revokeToken(tokenHash: string, clientId: string, now: number): Promise<boolean> {
    if (!isRowKey(tokenHash) || !isRowKey(clientId)) return false;
    const writes = this.writes ?? (await this.prepareWrites());
    return writes.enqueue(
      () => writes.revokeOne.run(now, tokenHash, clientId).changes === 1,
      () => super.revokeToken(tokenHash, clientId, now),
    );
  }

  override async close(): Promise<void> {
    this.statements?.db.close();
    this.statements = undefined;
    this.writes = undefined;
    await this.checkpointer?.stop();
    this.checkpointer = undefined;
    await super.close();
    this.afterClose?.();
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

  override async getPfpTimestamp(id: number): Promise<number | null | undefined> {
    if (!isRowId(id)) return undefined;
    const row = this.reads.pfpTimestamp.get(id);
    return row && numOrNull(row.pfp_timestamp);
  }

  /**
   * The app and the code are read on the writer when it is free: these reads come between the
   * writes of exchanges and revocations, and every commit resets the read-only connection's page
   * cache (each of its reads then starts over from the WAL index), while the connection that made
   * the commit keeps its own (docs/performance.md#reads-on-the-writer-connection).
   */
  override async getApp(clientId: string): Promise<AppRecord | undefined> {
    if (!isRowKey(clientId)) return undefined;
    const writes = this.writes ?? (await this.prepareWrites());
    const row = (writes.free() ? writes.app : this.reads.app).get(clientId);
    return row && toApp(row);
  }

  /** Only a first look: redeeming stays a conditional update in a transaction on the writer. */
  override async getCode(codeHash: string): Promise<CodeRecord | undefined> {
    if (!isRowKey(codeHash)) return undefined;
    const writes = this.writes ?? (await this.prepareWrites());
    const row = (writes.free() ? writes.code : this.reads.code).get(codeHash);
    return row && toCode(row);
  }

  override async getTokenWithUser(tokenHash: string): Promise<TokenWithUser | undefined> {
    if (!isRowKey(tokenHash)) return undefined;
    const row = this.reads.tokenWithUser.get(tokenHash);
    return row && toTokenWithUser(row);
  }
}
