import type { Knex } from 'knex';
import { isPostgres } from './dialect.js';

/**
 * PostgreSQL: the token exchange's redemption as one function, so it costs one round trip
 * (PostgresAppsQueries.redeemCode in src/store/apps/postgres.ts, docs/performance.md#the-token-exchange-on-postgresql): the claim of
 * the code, the insert of its token, and when the claim fails, why, with a replay's revocation of
 * the tokens issued from the code (RFC 6749 4.1.2), all in the one transaction of the call.
 *
 * Each statement of a PL/pgSQL function takes a fresh snapshot (READ COMMITTED): when a concurrent
 * redemption of the same code commits first, the claim waits for its row lock, then finds the
 * code used, and the statements after it see that redemption's token and revoke it, as the
 * exchange did in separate statements before. SQLite has no functions: SqliteStore and KnexStore
 * do the same in a transaction of their own, and this migration changes nothing there.
 */
const SIGNATURE =
  'idp_redeem_code(p_code_hash varchar, p_now bigint, p_token_hash varchar, p_client_id varchar, p_user_id integer, ' +
  'p_scopes varchar, p_token_code_hash varchar, p_expires_at bigint, p_revoked_at bigint, p_created_at bigint)';


export async function up(knex: Knex): Promise<void> {
  if (!isPostgres(knex)) return;
  await knex.raw(`
    create or replace function ${SIGNATURE}
    returns table (outcome text, revoked_tokens integer)
    language plpgsql as $$
    declare
      revoked integer;
    begin
      update auth_codes set used_at = p_now, token_hash = p_token_hash
        where code_hash = p_code_hash and used_at is null and expires_at > p_now;
      if found then
        insert into access_tokens (token_hash, client_id, user_id, scopes, code_hash, expires_at, revoked_at, created_at)
          values (p_token_hash, p_client_id, p_user_id, p_scopes, p_token_code_hash, p_expires_at, p_revoked_at, p_created_at);
        return query select 'redeemed'::text, 0;
        return;
      end if;
      perform 1 from auth_codes where code_hash = p_code_hash and used_at is null;
      if found then
        return query select 'expired'::text, 0;
        return;
      end if;
      update access_tokens set revoked_at = p_now
        where token_hash = (select token_hash from auth_codes where code_hash = p_code_hash) and revoked_at is null;
      get diagnostics revoked = row_count;
      return query select 'replayed'::text, revoked;
    end
    $$`);
}

export async function down(knex: Knex): Promise<void> {
  if (!isPostgres(knex)) return;
  await knex.raw(`drop function if exists ${SIGNATURE.replace(/p_\w+ /g, '')}`);
}
