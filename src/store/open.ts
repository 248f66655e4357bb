import knexFactory from 'knex';
import { KnexStore, knexConfig, sqliteFile } from './knex-store.js';
import { SqliteStore } from './sqlite-store.js';

/**
 * The store for a DATABASE_URL, one implementation per database
 * (docs/decisions.md#one-data-path-per-database): PostgreSQL gets KnexStore, a SQLite file gets
 * SqliteStore. A `:memory:` database lives on knex's single connection, where no second reader can
 * see it, so it gets KnexStore too; it is for throwaway runs only.
 */
export function openStoreAt(databaseUrl: string): KnexStore {
  const knex = knexFactory(knexConfig(databaseUrl));
  const file = sqliteFile(databaseUrl);
  if (file === undefined || file === ':memory:') return new KnexStore(knex, file);
  return new SqliteStore(knex, file);
}
