/**
 * Named prepared statements on a `pg` pool of their own: how the PostgreSQL fast paths
 * (src/store/<aggregate>/postgres.ts) run.
 * PostgreSQL parses and plans a named statement once per connection (pg remembers which
 * connection has which), and after that a call sends only the name and the values: no query
 * builder, no SQL text, one round trip (docs/performance.md#prepared-statements-on-postgresql).
 *
 * A statement names its columns, never `*`: a prepared `select *` fails once a migration adds a
 * column ("cached plan must not change result type") on every connection that prepared it.
 */
import pg from 'pg';
import type { Row } from './rows.js';

/** A named statement: its name is unique in the service, its text fixed. */
interface Statement {
  readonly name: string;
  readonly text: string;
}

/** A statement of the service's: its name prefixed, so none collides with another program's. */
export const statement = (name: string, text: string): Statement => ({ name: `idp_${name}`, text });

export class PgStatements {
  private readonly pool: pg.Pool;
  private ended: Promise<void> | undefined;

  constructor(config: pg.PoolConfig) {
    this.pool = new pg.Pool(config);
    // An idle connection the server dropped (a restart, an outage) is discarded by the pool
    // itself; the next statement reports what is wrong (src/store/outage.ts). Unhandled, this
    // event would end the process.
    this.pool.on('error', () => {});
  }

  async rows(statement: Statement, values: unknown[]): Promise<Row[]> {
    return (await this.pool.query<Row>({ name: statement.name, text: statement.text, values })).rows;
  }

  async first(statement: Statement, values: unknown[]): Promise<Row | undefined> {
    return (await this.rows(statement, values))[0];
  }

  /** How many rows the statement changed. */
  async count(statement: Statement, values: unknown[]): Promise<number> {
    return (await this.pool.query({ name: statement.name, text: statement.text, values })).rowCount ?? 0;
  }

  end(): Promise<void> {
    this.ended ??= this.pool.end();
    return this.ended;
  }
}
