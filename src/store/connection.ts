/**
 * How knex (and the hot paths' pg pool) connects to the database DATABASE_URL names. The URL is
 * parsed in src/domain/database.ts only: config.ts keeps the result (Config.database), and
 * everything after asks its dialect.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import type pg from 'pg';
import { DEFAULT_POOL_SIZE, type DatabaseLocation } from '../domain/database.js';

/** Bounds on PostgreSQL calls during an outage: connecting, waiting for the pool, one statement. */
const PG_CONNECT_TIMEOUT_MS = 3_000;
const PG_ACQUIRE_TIMEOUT_MS = 5_000;
const PG_STATEMENT_TIMEOUT_MS = 10_000;

/**
 * knex prints every failed connection attempt to the console; during an outage that is one line
 * per request, on top of the 503 the request log already shows. Other warnings still print.
 */
const quietOutageLog = {
  warn(message: unknown) {
    if (!/^(Acquire connection error|Connection Error)/.test(String(message))) console.warn(message);
  },
};

/** The settings every PostgreSQL connection gets, knex's and the prepared statements' pool's alike. */
function pgConnection(url: string) {
  return {
    connectionString: url,
    // An outage must answer 503 within seconds, never hang a request: a connection attempt,
    // a statement and a reply each have a bound (see docs/operations.md).
    connectionTimeoutMillis: PG_CONNECT_TIMEOUT_MS,
    statement_timeout: PG_STATEMENT_TIMEOUT_MS,
    query_timeout: PG_STATEMENT_TIMEOUT_MS + 2_000,
    keepAlive: true,
  };
}

/**
 * The `pg` pool that runs the hot paths' named prepared statements on PostgreSQL
 * (src/store/pg-statements.ts), beside knex's pool. Its connectionTimeoutMillis bounds both a
 * connection attempt and the wait for a free connection.
 */
export function pgPoolConfig(database: { url: string; poolSize?: number }): pg.PoolConfig {
  return { ...pgConnection(database.url), max: database.poolSize ?? DEFAULT_POOL_SIZE };
}

/** The knex configuration for a database; a SQLite file's directory is created if missing. */
export function knexConfig(database: DatabaseLocation): Knex.Config {
  if (database.dialect === 'postgres') {
    return {
      client: 'pg',
      connection: pgConnection(database.url),
      // Waiting for a free connection is bounded too (knex's default is 60 s).
      acquireConnectionTimeout: PG_ACQUIRE_TIMEOUT_MS,
      pool: { min: 0, max: database.poolSize ?? DEFAULT_POOL_SIZE },
      log: quietOutageLog,
    };
  }
  const filename = database.file;
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
