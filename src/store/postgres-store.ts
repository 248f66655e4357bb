import type { Knex } from 'knex';
import { PostgresAppsQueries } from './apps/postgres.js';
import type { DatabaseLocation } from '../domain/database.js';
import { pgPoolConfig } from './connection.js';
import { KnexStore } from './knex-store.js';
import { PgStatements } from './pg-statements.js';
import { PostgresSessionsQueries } from './sessions/postgres.js';
import { PostgresUsersQueries } from './users/postgres.js';

/**
 * The Store on PostgreSQL: the knex store, with the hot paths of users, apps and sessions
 * (src/store/<aggregate>/postgres.ts) as named prepared statements on a `pg` pool of its own
 * (PgStatements; docs/performance.md#prepared-statements-on-postgresql), one round trip each.
 */
export class PostgresStore extends KnexStore {
  private readonly statements: PgStatements;

  constructor(knex: Knex, database: Extract<DatabaseLocation, { dialect: 'postgres' }>) {
    const statements = new PgStatements(pgPoolConfig(database));
    super(knex, 'postgres', {
      users: new PostgresUsersQueries(knex, statements),
      apps: new PostgresAppsQueries(knex, statements),
      sessions: new PostgresSessionsQueries(knex, statements),
    });
    this.statements = statements;
  }

  override async close(): Promise<void> {
    await this.statements.end();
    await super.close();
  }
}
