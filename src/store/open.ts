import knexFactory from 'knex';
import { knexConfig, parseDatabaseUrl, type DatabaseLocation } from './connection.js';
import { KnexStore } from './knex-store.js';
import { withOutageGuard } from './outage.js';
import { PostgresStore } from './postgres-store.js';
import { SqliteStore } from './sqlite-store.js';

/**
 * The store for a database (Config.database, or a DATABASE_URL as scripts and tests give it), one
 * implementation per database (docs/decisions.md#one-data-path-per-database): PostgreSQL gets
 * PostgresStore, a SQLite file gets SqliteStore (both extend KnexStore). A `:memory:` database
 * lives on knex's single connection, where no second reader can see it, so it gets KnexStore
 * itself; it is for throwaway runs only.
 *
 * Each is returned behind the outage guard (src/store/outage.ts): a database that cannot be
 * reached surfaces as Unavailable from every method.
 */
export function openStoreAt(database: DatabaseLocation | string): KnexStore {
  const location = typeof database === 'string' ? parseDatabaseUrl(database) : database;
  const knex = knexFactory(knexConfig(location));
  const store =
    location.dialect === 'postgres'
      ? new PostgresStore(knex, location)
      : location.file !== ':memory:'
        ? new SqliteStore(knex, location.file)
        : new KnexStore(knex, location.dialect);
  return withOutageGuard(store, () => store.errorListener);
}
