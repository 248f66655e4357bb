import type Database from 'better-sqlite3';
import type { Knex } from 'knex';
import { EXPIRED, REDEEMED, type AppRecord, type CodeRecord, type Redemption, type TokenRecord, type TokenWithUser } from '../../domain/apps.js';
import { isRowKey, type Row } from '../rows.js';
import { perConnection, type SqliteConnections } from '../sqlite-connections.js';
import { AppsQueries } from './queries.js';
import { CODE_WITH_USER_SQL, TOKEN_WITH_USER_COLUMNS, toApp, toCode, tokenRow, toTokenWithUser } from './rows.js';

/** The reads: an app and a code (on the writer when it is free), a token with its user (read-only). */
const reads = perConnection((db: Database.Database) => ({
  app: db.prepare<[string], Row>('select * from apps where client_id = ?'),
  code: db.prepare<[string], Row>(CODE_WITH_USER_SQL),
  tokenWithUser: db.prepare<[string], Row>(
    `select ${TOKEN_WITH_USER_COLUMNS.join(', ')} from access_tokens t join users u on u.id = t.user_id where t.token_hash = ?`,
  ),
}));

/** The writes, on the writer connection. */
const writes = perConnection((db: Database.Database) => ({
  claim: db.prepare<[number, string, string, number]>('update auth_codes set used_at = ?, token_hash = ? where code_hash = ? and used_at is null and expires_at > ?'),
  insertToken: db.prepare<[Row]>(
    'insert into access_tokens (token_hash, client_id, user_id, scopes, code_hash, expires_at, revoked_at, created_at) ' +
      'values (@token_hash, @client_id, @user_id, @scopes, @code_hash, @expires_at, @revoked_at, @created_at)',
  ),
  // The code's row names its token (migration 009): no index of tokens by code to keep up.
  revokeOfCode: db.prepare<[number, string]>(
    'update access_tokens set revoked_at = ? where token_hash = (select token_hash from auth_codes where code_hash = ?) and revoked_at is null',
  ),
  unusedCode: db.prepare<[string], Row>('select code_hash from auth_codes where code_hash = ? and used_at is null'),
  revokeOne: db.prepare<[number, string, string]>('update access_tokens set revoked_at = ? where token_hash = ? and client_id = ? and revoked_at is null'),
}));

/**
 * AppStore on a SQLite file: the token exchange's reads and writes and RFC 7009 revocation as
 * prepared better-sqlite3 statements (src/store/sqlite-connections.ts), which cost a fraction of
 * the same statement through knex (docs/performance.md#prepared-reads). The writes (a code's
 * redemption, a replayed code's revocation, revocation) are committed in groups; exactly one of any
 * number of concurrent redemptions of a code sees `used_at is null`. Everything else is knex's.
 */
export class SqliteAppsQueries extends AppsQueries {
  constructor(
    knex: Knex,
    private readonly connections: SqliteConnections,
  ) {
    super(knex, 'sqlite');
  }

  /** Only a first look: redeeming stays a conditional update in a transaction on the writer. */
  override async getCode(codeHash: string): Promise<CodeRecord | undefined> {
    if (!isRowKey(codeHash)) return undefined;
    const writer = this.connections.groupWriter ?? (await this.connections.writer());
    const row = reads(this.connections.writerIfFree(writer)).code.get(codeHash);
    return row && toCode(row);
  }

  override async getApp(clientId: string): Promise<AppRecord | undefined> {
    if (!isRowKey(clientId)) return undefined;
    const writer = this.connections.groupWriter ?? (await this.connections.writer());
    const row = reads(this.connections.writerIfFree(writer)).app.get(clientId);
    return row && toApp(row);
  }

  override async getTokenWithUser(tokenHash: string): Promise<TokenWithUser | undefined> {
    if (!isRowKey(tokenHash)) return undefined;
    const row = reads(this.connections.reader()).tokenWithUser.get(tokenHash);
    return row && toTokenWithUser(row);
  }

  /**
   * The code's claim and the token's insert; when the claim fails, why: an unused code has
   * expired, a used (or gone) one is a replay, whose tokens are revoked in the same savepoint.
   */
  override async redeemCode(codeHash: string, now: number, token: TokenRecord): Promise<Redemption> {
    if (!isRowKey(codeHash)) return { outcome: 'replayed', revokedTokens: 0 };
    const writer = this.connections.groupWriter ?? (await this.connections.writer());
    const row = tokenRow(token);
    return writer.enqueue(
      (): Redemption => {
        const w = writes(writer.db);
        if (w.claim.run(now, row.token_hash as string, codeHash, now).changes === 1) {
          w.insertToken.run(row);
          return REDEEMED;
        }
        if (w.unusedCode.get(codeHash)) return EXPIRED;
        return { outcome: 'replayed', revokedTokens: w.revokeOfCode.run(now, codeHash).changes };
      },
      () => super.redeemCode(codeHash, now, token),
    );
  }

  override async revokeTokensOfCode(codeHash: string, now: number): Promise<number> {
    if (!isRowKey(codeHash)) return 0;
    const writer = this.connections.groupWriter ?? (await this.connections.writer());
    return writer.enqueue(
      () => writes(writer.db).revokeOfCode.run(now, codeHash).changes,
      () => super.revokeTokensOfCode(codeHash, now),
    );
  }

  override async revokeToken(tokenHash: string, clientId: string, now: number): Promise<boolean> {
    if (!isRowKey(tokenHash) || !isRowKey(clientId)) return false;
    const writer = this.connections.groupWriter ?? (await this.connections.writer());
    return writer.enqueue(
      () => writes(writer.db).revokeOne.run(now, tokenHash, clientId).changes === 1,
      () => super.revokeToken(tokenHash, clientId, now),
    );
  }
}
