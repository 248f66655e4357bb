import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knexFactory from 'knex';
import { parseDatabaseUrl, type DatabaseLocation } from '../domain/database.js';
import { knexConfig } from './connection.js';
import { AGGREGATE_NAMES, type KnexStore } from './knex-store.js';
import { withOutageGuard } from './outage.js';
import { PostgresStore } from './postgres-store.js';
import { SqliteStore } from './sqlite-store.js';
import type { DatabaseErrorListener } from './types.js';

/**
 * The store for a database (Config.database, or a DATABASE_URL as scripts and tests give it), one
 * implementation per database (docs/decisions.md#one-data-path-per-database): PostgreSQL gets
 * PostgresStore, a SQLite file SqliteStore (both extend KnexStore). `:memory:` asks for a
 * throwaway database: a SQLite file in a fresh temporary directory, removed when the store closes,
 * so it runs the same code as any SQLite file (an in-memory database would live on one connection,
 * where SqliteStore's second, read-only connection could not see it).
 *
 * Each is returned behind the outage guard (src/store/outage.ts), the lifecycle and every
 * aggregate: a database that cannot be reached surfaces as Unavailable from every method.
 */
export function openStoreAt(database: DatabaseLocation | string): KnexStore {
  const location = typeof database === 'string' ? parseDatabaseUrl(database) : database;
  let store: KnexStore;
  if (location.dialect === 'postgres') {
    store = new PostgresStore(knexFactory(knexConfig(location)), location);
  } else if (location.file === ':memory:') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'idp-memory-'));
    const file = path.join(dir, 'service.sqlite');
    store = new SqliteStore(knexFactory(knexConfig({ dialect: 'sqlite', file })), file, () => fs.rmSync(dir, { recursive: true, force: true }));
  } else {
    store = new SqliteStore(knexFactory(knexConfig(location)), location.file);
  }
  const opened = store;
  const listener = (): DatabaseErrorListener | undefined => opened.errorListener;
  const guarded = withOutageGuard(opened, listener);
  for (const name of AGGREGATE_NAMES) Object.defineProperty(guarded, name, { value: withOutageGuard(opened[name], listener), enumerable: true, configurable: true });
  return guarded;
}
