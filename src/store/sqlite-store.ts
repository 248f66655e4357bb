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
import type { AppRecord, CodeRecord, PublicUserRecord, TokenWithUser, UserRecord } from './types.js';

type Row = Record<string, unknown>;

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
 * (docs/decisions.md#one-data-path-per-database). Everything else, and every write, is KnexStore's.
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

  private get reads(): Reads {
    this.statements ??= new Reads(this.sqlitePath as string);
    return this.statements;
  }

  override async close(): Promise<void> {
    this.statements?.db.close();
    this.statements = undefined;
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
