import type { Knex } from 'knex';
import { SqliteAppsQueries } from './apps/sqlite.js';
import { KnexStore } from './knex-store.js';
import { SqliteConnections } from './sqlite-connections.js';
import { SqliteUsersQueries } from './users/sqlite.js';

/**
 * The Store on a SQLite file: the knex store, with the hot paths of users (src/store/users/sqlite.ts)
 * and apps (src/store/apps/sqlite.ts) as prepared better-sqlite3 statements on the file's two
 * connections (src/store/sqlite-connections.ts), which cost a fraction of the same statement
 * through knex (docs/performance.md#prepared-reads, docs/decisions.md#one-data-path-per-database).
 */
export class SqliteStore extends KnexStore {
  private readonly connections: SqliteConnections;

  constructor(
    knex: Knex,
    file: string,
    /** Called once the store is closed (a throwaway database's temporary directory goes: open.ts). */
    private readonly afterClose?: () => void,
  ) {
    const connections = new SqliteConnections(knex, file);
    super(knex, 'sqlite', { users: new SqliteUsersQueries(knex, connections), apps: new SqliteAppsQueries(knex, connections) });
    this.connections = connections;
  }

  override async close(): Promise<void> {
    await this.connections.close();
    await super.close();
    this.afterClose?.();
  }
}
