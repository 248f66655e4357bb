import Database from 'better-sqlite3';
import type { Knex } from 'knex';
import { startCheckpointer, WRITER_AUTOCHECKPOINT_PAGES, type Checkpointer } from './checkpointer.js';
import { isUnavailableError } from './outage.js';

interface QueuedWrite {
  write: () => unknown;
  fallback: () => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Writes as prepared statements on knex's own (single) writer connection, committed in groups:
 * every such write asked for while the event loop polls its sockets is run at the end of that turn
 * (setImmediate) in one IMMEDIATE transaction, each in a savepoint of its own, and each caller is
 * answered only after the group's COMMIT. The commit (writing the changed pages to the WAL) is most
 * of a write's cost, and a group shares one (docs/performance.md#prepared-statements-on-the-writer-connection).
 *
 * better-sqlite3 runs a transaction start to end within one synchronous call, so no other
 * request's statement comes between a claim and its insert. A write that fails is rolled back to
 * its savepoint and fails alone; an outage (a locked or full file) fails the whole group, unmapped
 * here, so the outage guard answers 503.
 */
class GroupWriter {
  private readonly group: Database.Transaction<(items: QueuedWrite[], outcomes: Outcome[]) => void>;
  private readonly savepoint: Database.Transaction<(write: () => unknown) => unknown>;
  private queue: QueuedWrite[] = [];

  constructor(readonly db: Database.Database) {
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

/**
 * A SQLite file's two connections for the hot paths (the aggregates' sqlite.ts files prepare
 * their statements on them): a read-only one of its own, and knex's writer with its group commits
 * (GroupWriter). The database is in WAL mode, so the read-only connection sees every commit made
 * before each of its reads: a change is visible to the very next request.
 */
export class SqliteConnections {
  /** Opened on the first read: the tables exist only once the store has been migrated. */
  private readOnly: Database.Database | undefined;
  /** Prepared on first use (writer()); read it first, as the hot paths do, to skip an await. */
  groupWriter: GroupWriter | undefined;
  /** Started with the writer: a store that never writes this way needs none. */
  private checkpointer: Checkpointer | undefined;

  constructor(
    private readonly knex: Knex,
    private readonly file: string,
  ) {}

  /** The read-only connection. */
  reader(): Database.Database {
    if (!this.readOnly) {
      const db = new Database(this.file, { readonly: true, fileMustExist: true });
      db.pragma('busy_timeout = 5000');
      // Read through a memory map (no read() call per page) with a larger page cache: lookups in a
      // table of a million users then cost about what they cost in one of a thousand.
      db.pragma('mmap_size = 1073741824');
      db.pragma('cache_size = -65536');
      this.readOnly = db;
    }
    return this.readOnly;
  }

  /** The writer: the connection knex's pool of one holds, with its group commits. */
  async writer(): Promise<GroupWriter> {
    if (this.groupWriter) return this.groupWriter;
    const client = (this.knex as unknown as { client: { acquireConnection(): Promise<Database.Database>; releaseConnection(c: unknown): Promise<unknown> } }).client;
    const db = await client.acquireConnection();
    try {
      if (!this.groupWriter) {
        this.groupWriter = new GroupWriter(db);
        this.checkpointer = startCheckpointer(this.file);
        db.pragma(`wal_autocheckpoint = ${WRITER_AUTOCHECKPOINT_PAGES}`);
      }
    } finally {
      await client.releaseConnection(db);
    }
    return this.groupWriter;
  }

  /**
   * Reads that come between the writer's commits are cheaper on the writer when it is free: every
   * commit resets the read-only connection's page cache, while the connection that made the commit
   * keeps its own (docs/performance.md#reads-on-the-writer-connection).
   */
  writerIfFree(writer: GroupWriter): Database.Database {
    return writer.free() ? writer.db : this.reader();
  }

  async close(): Promise<void> {
    this.readOnly?.close();
    this.readOnly = undefined;
    this.groupWriter = undefined;
    await this.checkpointer?.stop();
    this.checkpointer = undefined;
  }
}

/**
 * A statement set prepared once per connection: `prepare` runs on a connection's first use, and a
 * connection opened again (after close) gets its own.
 */
export function perConnection<T>(prepare: (db: Database.Database) => T): (db: Database.Database) => T {
  const prepared = new WeakMap<Database.Database, T>();
  return (db) => {
    let statements = prepared.get(db);
    if (!statements) {
      statements = prepare(db);
      prepared.set(db, statements);
    }
    return statements;
  };
}
