import type { Knex } from 'knex';
import { EXPIRED, REDEEMED, type AppRecord, type CodeRecord, type Redemption, type TokenRecord, type TokenWithUser } from '../../domain/apps.js';
import { PgStatements, statement } from '../pg-statements.js';
import { isRowKey, num, type Row } from '../rows.js';
import { AppsQueries } from './queries.js';
import { APP_COLUMNS, CODE_COLUMNS, TOKEN_WITH_USER_COLUMNS, toApp, toCode, toTokenWithUser } from './rows.js';

const TOKEN_WITH_USER = statement(
  'token_with_user',
  `select ${TOKEN_WITH_USER_COLUMNS.join(', ')} from access_tokens t join users u on u.id = t.user_id where t.token_hash = $1`,
);
const APP = statement('app', `select ${APP_COLUMNS.join(', ')} from apps where client_id = $1`);
/** Migration 017: the claim, the token's insert and a replay's revocation in one call. */
const REDEEM = statement('redeem_code', 'select outcome, revoked_tokens from idp_redeem_code($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)');
/** Through the code's row, which names the token it was redeemed for (migration 009). */
const REVOKE_OF_CODE = statement(
  'revoke_of_code',
  'update access_tokens set revoked_at = $1 where token_hash = (select token_hash from auth_codes where code_hash = $2) and revoked_at is null',
);
const REVOKE_ONE = statement('revoke_token', 'update access_tokens set revoked_at = $1 where token_hash = $2 and client_id = $3 and revoked_at is null');
/**
 * An app beside a code or a token, one row whatever exists: each table's columns under a prefix
 * of its own, null where no row matched (its primary key then reads null).
 */
const outputName = (column: string): string => column.split(' as ')[1] ?? column.slice(column.indexOf('.') + 1);
const prefixed = (columns: readonly string[], table: string, prefix: string): string =>
  columns.map((c) => `${c.includes('.') ? c.split(' as ')[0] : `${table}.${c}`} as ${prefix}${outputName(c)}`).join(', ');
const APP_AND = (table: string, prefix: string, columns: readonly string[], join: string) =>
  `select ${prefixed(APP_COLUMNS, 'a', 'a_')}, ${prefixed(columns, table, prefix)} from (values (1)) as one (x) ` +
  `left join apps a on a.client_id = $1 left join ${join}`;
const CODE = statement('code', `select ${prefixed(CODE_COLUMNS, 'c', '')} from auth_codes c left join users u on u.id = c.user_id where c.code_hash = $1`);
const APP_AND_CODE = statement('app_and_code', APP_AND('c', 'c_', CODE_COLUMNS, '(auth_codes c left join users u on u.id = c.user_id) on c.code_hash = $2'));
const APP_AND_TOKEN = statement('app_and_token', APP_AND('t', 't_', TOKEN_WITH_USER_COLUMNS, '(access_tokens t join users u on u.id = t.user_id) on t.token_hash = $2'));
const APP_NAMES = APP_COLUMNS.map(outputName);
const CODE_NAMES = CODE_COLUMNS.map(outputName);
const TOKEN_NAMES = TOKEN_WITH_USER_COLUMNS.map(outputName);

/** The columns of `names` under `prefix` in `row`, unprefixed; undefined when the first (the key) is null. */
function part(row: Row, prefix: string, names: readonly string[]): Row | undefined {
  if (row[prefix + names[0]!] === null) return undefined;
  const out: Row = {};
  for (const name of names) out[name] = row[prefix + name];
  return out;
}

/**
 * AppStore on PostgreSQL: the hot paths as named prepared statements (src/store/pg-statements.ts),
 * one round trip each: an app with a code (getAppAndCode: the token exchange) or with a token
 * (getAppAndToken: introspection, revocation) in one statement, an app, a code and a token with
 * its user (whois) alone; a code's redemption (one call of the function of migration 017), a
 * replayed code's revocation and RFC 7009 revocation, each one statement, so its own transaction.
 * Everything else is knex's.
 */
export class PostgresAppsQueries extends AppsQueries {
  constructor(
    knex: Knex,
    private readonly statements: PgStatements,
  ) {
    super(knex, 'postgres');
  }

  override async getTokenWithUser(tokenHash: string): Promise<TokenWithUser | undefined> {
    if (!isRowKey(tokenHash)) return undefined;
    const row = await this.statements.first(TOKEN_WITH_USER, [tokenHash]);
    return row && toTokenWithUser(row);
  }

  override async getApp(clientId: string): Promise<AppRecord | undefined> {
    if (!isRowKey(clientId)) return undefined;
    const row = await this.statements.first(APP, [clientId]);
    return row && toApp(row);
  }

  override async getCode(codeHash: string): Promise<CodeRecord | undefined> {
    if (!isRowKey(codeHash)) return undefined;
    const row = await this.statements.first(CODE, [codeHash]);
    return row && toCode(row);
  }

  override async getAppAndCode(clientId: string, codeHash: string): Promise<{ app: AppRecord | undefined; code: CodeRecord | undefined }> {
    if (!isRowKey(clientId) || !isRowKey(codeHash)) return super.getAppAndCode(clientId, codeHash);
    const row = (await this.statements.first(APP_AND_CODE, [clientId, codeHash]))!;
    const app = part(row, 'a_', APP_NAMES);
    const code = part(row, 'c_', CODE_NAMES);
    return { app: app && toApp(app), code: code && toCode(code) };
  }

  override async getAppAndToken(clientId: string, tokenHash: string): Promise<{ app: AppRecord | undefined; tokenWithUser: TokenWithUser | undefined }> {
    if (!isRowKey(clientId) || !isRowKey(tokenHash)) return super.getAppAndToken(clientId, tokenHash);
    const row = (await this.statements.first(APP_AND_TOKEN, [clientId, tokenHash]))!;
    const app = part(row, 'a_', APP_NAMES);
    const token = part(row, 't_', TOKEN_NAMES);
    return { app: app && toApp(app), tokenWithUser: token && toTokenWithUser(token) };
  }

  override async redeemCode(codeHash: string, now: number, token: TokenRecord): Promise<Redemption> {
    if (!isRowKey(codeHash)) return { outcome: 'replayed', revokedTokens: 0 };
    const row = await this.statements.first(REDEEM, [
      codeHash,
      now,
      token.tokenHash,
      token.clientId,
      token.userId,
      token.scopes.join(' '),
      token.codeHash,
      token.expiresAt,
      token.revokedAt,
      token.createdAt,
    ]);
    if (row?.outcome === 'redeemed') return REDEEMED;
    if (row?.outcome === 'expired') return EXPIRED;
    return { outcome: 'replayed', revokedTokens: num(row?.revoked_tokens) };
  }

  override async revokeTokensOfCode(codeHash: string, now: number): Promise<number> {
    if (!isRowKey(codeHash)) return 0;
    return this.statements.count(REVOKE_OF_CODE, [now, codeHash]);
  }

  override async revokeToken(tokenHash: string, clientId: string, now: number): Promise<boolean> {
    if (!isRowKey(tokenHash) || !isRowKey(clientId)) return false;
    return (await this.statements.count(REVOKE_ONE, [now, tokenHash, clientId])) === 1;
  }
}
