import Database from 'better-sqlite3';

type Row = Record<string, unknown>;

/**
 * The hot reads (users/info, whois, pictures, and the token exchange's app and code) as prepared better-sqlite3 statements on a second,
 * read-only connection: about a third of the cost of the same read through knex (STACK.md).
 * The database runs in WAL mode, so every statement here sees every commit made before it
 * through knex: a change is visible to the very next request.
 */
export class SqliteReads {
  private readonly db: Database.Database;
  private readonly userById: Database.Statement<[number], Row>;
  private readonly publicUserById: Database.Statement<[number], Row>;
  private readonly tokenWithUser: Database.Statement<[string], Row>;
  private readonly appById: Database.Statement<[string], Row>;
  private readonly codeByHash: Database.Statement<[string], Row>;

  constructor(filename: string, publicUserColumns: readonly string[], tokenWithUserColumns: readonly string[]) {
    this.db = new Database(filename, { readonly: true, fileMustExist: true });
    this.db.pragma('busy_timeout = 5000');
    // Read through a memory map (no read() call per page) with a larger page cache: lookups in a
    // table of a million users then cost about what they cost in one of a thousand.
    this.db.pragma('mmap_size = 1073741824');
    this.db.pragma('cache_size = -65536');
    this.userById = this.db.prepare('select * from users where id = ?');
    this.publicUserById = this.db.prepare(`select ${publicUserColumns.join(', ')} from users where id = ?`);
    this.appById = this.db.prepare('select * from apps where client_id = ?');
    this.codeByHash = this.db.prepare('select * from auth_codes where code_hash = ?');
    this.tokenWithUser = this.db.prepare(
      `select ${tokenWithUserColumns.join(', ')} from access_tokens t join users u on u.id = t.user_id where t.token_hash = ?`,
    );
  }

  user(id: number): Row | undefined {
    return this.userById.get(id);
  }

  publicUser(id: number): Row | undefined {
    return this.publicUserById.get(id);
  }

  app(clientId: string): Row | undefined {
    return this.appById.get(clientId);
  }

  /** Only a first look: redeeming stays a conditional update in a transaction on the writer. */
  code(codeHash: string): Row | undefined {
    return this.codeByHash.get(codeHash);
  }

  token(tokenHash: string): Row | undefined {
    return this.tokenWithUser.get(tokenHash);
  }

  close(): void {
    this.db.close();
  }
}
