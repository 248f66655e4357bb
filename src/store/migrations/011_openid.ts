import type { Knex } from 'knex';

/**
 * OpenID Connect (docs/oauth.md#openid-connect):
 * - a code remembers the `nonce` of its request and `auth_time`, when the person signed in to
 *   the session that got it, for the ID token made when it is redeemed;
 * - `users.profile_updated_at` is the ID token's `updated_at`: when a claim of the `profile`
 *   scope last changed (the picture; names never change), backfilled from the picture's time;
 * - `signing_keys` holds the ID token signing keys every instance shares: the public key as a
 *   JWK, the private key only encrypted (a JWE under a key derived from SESSION_SECRET).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('auth_codes', (t) => {
    t.string('nonce', 512).nullable();
    t.bigInteger('auth_time').nullable();
  });
  await knex.schema.alterTable('users', (t) => {
    t.bigInteger('profile_updated_at').nullable();
  });
  await knex('users').update({ profile_updated_at: knex.raw('CASE WHEN pfp_high_water > created_at THEN pfp_high_water ELSE created_at END') });
  await knex.schema.createTable('signing_keys', (t) => {
    t.string('kid', 64).primary();
    t.string('alg', 16).notNullable();
    t.text('public_jwk').notNullable();
    t.text('private_jwe').notNullable();
    t.bigInteger('created_at').notNullable();
    // When a newer key took over signing; null while this key signs.
    t.bigInteger('retired_at').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('signing_keys');
  await knex.schema.alterTable('users', (t) => {
    t.dropColumn('profile_updated_at');
  });
  await knex.schema.alterTable('auth_codes', (t) => {
    t.dropColumn('auth_time');
    t.dropColumn('nonce');
  });
}
