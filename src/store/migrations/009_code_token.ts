import type { Knex } from 'knex';

/**
 * The token a code was redeemed for is kept on the code's row (set by the same update that claims
 * the code), and the index of tokens by code goes: a replayed code revokes its token through the
 * code's row (RFC 6749 4.1.2). The index was one more randomly placed page written to disk by
 * every token exchange, for a lookup that only a replay makes; on SQLite the exchange costs
 * measurably less CPU without it (docs/performance.md#token-exchange-writes).
 * `access_tokens.code_hash` stays, as the record of where each token came from.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('auth_codes', (t) => {
    t.string('token_hash', 64).nullable();
  });
  // Codes redeemed before this migration: their tokens, found through the index while it exists.
  await knex('auth_codes')
    .whereNotNull('used_at')
    .update({ token_hash: knex('access_tokens').select('token_hash').where('access_tokens.code_hash', knex.ref('auth_codes.code_hash')).limit(1) });
  await knex.schema.alterTable('access_tokens', (t) => {
    t.dropIndex(['code_hash']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('access_tokens', (t) => {
    t.index(['code_hash']);
  });
  await knex.schema.alterTable('auth_codes', (t) => {
    t.dropColumn('token_hash');
  });
}
