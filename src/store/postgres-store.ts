import type { Knex } from 'knex';
import { pgPoolConfig } from './connection.js';
import { KnexStore } from './knex-store.js';
import { PgStatements, type Statement } from './pg-statements.js';
import { isRowId, numOrNull } from './rows.js';

const PFP_TIMESTAMP: Statement = { name: 'idp_pfp_timestamp', text: 'select pfp_timestamp from users where id = $1' };

/**
 * The Store on PostgreSQL: the knex store with the hot paths as named prepared statements on a
 * `pg` pool of its own (PgStatements; docs/performance.md#prepared-statements-on-postgresql).
 * Everything else is KnexStore's.
 *
 * - The picture route's check of a user's pfpTimestamp (getPfpTimestamp).
 */
export class PostgresStore extends KnexStore {
  private readonly statements: PgStatements;

  constructor(knex: Knex, url: string) {
    super(knex, 'postgres');
    this.statements = new PgStatements(pgPoolConfig(url));
  }

  override async getPfpTimestamp(id: number): Promise<number | null | undefined> {
    if (!isRowId(id)) return undefined;
    const row = await this.statements.first(PFP_TIMESTAMP, [id]);
    return row && numOrNull(row.pfp_timestamp);
  }

  override async close(): Promise<void> {
    await this.statements.end();
    await super.close();
  }
}
