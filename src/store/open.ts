import knexFactory from 'knex';
import { KnexStore, knexConfig, sqliteFile } from './knex-store.js';
import { SqliteStore } from './sqlite-store.js';
import { guardStore } from './unavailable.js';

/**
 * The store for a DATABASE_URL, one implementation per database
 * (docs/decisions.md#one-data-path-per-database): PostgreSQL gets KnexStore, a SQLite file gets
 * SqliteStore. A `:memory:` database lives on knex's single connection, where no second reader can
 * see it, so it gets KnexStore too; it is for throwaway runs only.
 *
 * Either is returned behind the outage guard (src/store/unavailable.ts): a database that cannot be
 * reached surfaces as Unavailable from every method.
 */
export function openStoreAt(databaseUrl: string): KnexStore {
  const knex = knexFactory(knexConfig(databaseUrl));
  const file = sqliteFile(databaseUrl);
  const store = file === undefined || file === ':memory:' ? new KnexStore(knex, file) : new SqliteStore(knex, file);
  return guardStore(store, () => store.errorListener);
}
