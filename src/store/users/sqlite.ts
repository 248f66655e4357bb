import type Database from 'better-sqlite3';
import type { Knex } from 'knex';
import type { PublicUserRecord, UserRecord } from '../../domain/users.js';
import { isRowId, numOrNull, type Row } from '../rows.js';
import { perConnection, type SqliteConnections } from '../sqlite-connections.js';
import { UsersQueries } from './queries.js';
import { PUBLIC_USER_COLUMNS, toPublicUserRecord, toUser } from './rows.js';

const reads = perConnection((db: Database.Database) => ({
  user: db.prepare<[number], Row>('select * from users where id = ?'),
  publicUser: db.prepare<[number], Row>(`select ${PUBLIC_USER_COLUMNS.join(', ')} from users where id = ?`),
  pfpTimestamp: db.prepare<[number], Row>('select pfp_timestamp from users where id = ?'),
}));

/**
 * UserStore on a SQLite file: the three hot reads as prepared better-sqlite3 statements on the
 * read-only connection (src/store/sqlite-connections.ts): a user by id (the signed-in user), its
 * public fields (users/info) and its picture's timestamp alone (the picture route). Everything
 * else is knex's.
 */
export class SqliteUsersQueries extends UsersQueries {
  constructor(
    knex: Knex,
    private readonly connections: SqliteConnections,
  ) {
    super(knex, 'sqlite');
  }

  override async getUser(id: number): Promise<UserRecord | undefined> {
    if (!isRowId(id)) return undefined;
    const row = reads(this.connections.reader()).user.get(id);
    return row && toUser(row);
  }

  override async getPublicUser(id: number): Promise<PublicUserRecord | undefined> {
    if (!isRowId(id)) return undefined;
    const row = reads(this.connections.reader()).publicUser.get(id);
    return row && toPublicUserRecord(row);
  }

  override async getPfpTimestamp(id: number): Promise<number | null | undefined> {
    if (!isRowId(id)) return undefined;
    const row = reads(this.connections.reader()).pfpTimestamp.get(id);
    return row && numOrNull(row.pfp_timestamp);
  }
}
