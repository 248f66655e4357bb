import type { Knex } from 'knex';
import { PgStatements, statement } from '../pg-statements.js';
import { isRowKey } from '../rows.js';
import { SessionsQueries } from './queries.js';

const SESSION = statement('session', 'select data from sessions where id_hash = $1 and expires_at > $2');

/**
 * SessionStore on PostgreSQL: a session's read (every request with a session cookie) as a named
 * prepared statement (src/store/pg-statements.ts). Everything else is knex's.
 */
export class PostgresSessionsQueries extends SessionsQueries {
  constructor(
    knex: Knex,
    private readonly statements: PgStatements,
  ) {
    super(knex, 'postgres');
  }

  override async getSession(idHash: string, now: number): Promise<string | undefined> {
    if (!isRowKey(idHash)) return undefined;
    const row = await this.statements.first(SESSION, [idHash, now]);
    return row ? String(row.data) : undefined;
  }
}
