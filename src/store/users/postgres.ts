import type { Knex } from 'knex';
import type { PublicUserRecord, UserRecord } from '../../domain/users.js';
import { PgStatements, statement } from '../pg-statements.js';
import { isRowId, numOrNull } from '../rows.js';
import { UsersQueries } from './queries.js';
import { PUBLIC_USER_COLUMNS, toPublicUserRecord, toUser, USER_COLUMNS } from './rows.js';

const USER = statement('user', `select ${USER_COLUMNS.join(', ')} from users where id = $1`);
const PUBLIC_USER = statement('public_user', `select ${PUBLIC_USER_COLUMNS.join(', ')} from users where id = $1`);
const PFP_TIMESTAMP = statement('pfp_timestamp', 'select pfp_timestamp from users where id = $1');

/**
 * UserStore on PostgreSQL: the three hot reads as named prepared statements
 * (src/store/pg-statements.ts): a user (the signed-in user of pages and account calls, the ID
 * token), its public fields (users/info) and its picture's timestamp (the picture route).
 * Everything else is knex's.
 */
export class PostgresUsersQueries extends UsersQueries {
  constructor(
    knex: Knex,
    private readonly statements: PgStatements,
  ) {
    super(knex, 'postgres');
  }

  override async getUser(id: number): Promise<UserRecord | undefined> {
    if (!isRowId(id)) return undefined;
    const row = await this.statements.first(USER, [id]);
    return row && toUser(row);
  }

  override async getPublicUser(id: number): Promise<PublicUserRecord | undefined> {
    if (!isRowId(id)) return undefined;
    const row = await this.statements.first(PUBLIC_USER, [id]);
    return row && toPublicUserRecord(row);
  }

  override async getPfpTimestamp(id: number): Promise<number | null | undefined> {
    if (!isRowId(id)) return undefined;
    const row = await this.statements.first(PFP_TIMESTAMP, [id]);
    return row && numOrNull(row.pfp_timestamp);
  }
}
