import type { Knex } from 'knex';

/**
 * Refresh tokens (RFC 6749 section 6, rotated on every use) and the grants an app may use.
 *
 * - `apps.grant_types`: the app's RFC 7591 `grant_types`, space-separated; every existing app keeps
 *   `authorization_code` alone.
 * - `refresh_tokens`: one row per refresh token, by the SHA-256 of the token. The tokens of one
 *   sign-in form a family (`family_id`: the hash of the code or device code that started it, so a
 *   replayed code ends its family too); each row names the access token issued with it
 *   (`access_token_hash`, as auth_codes.token_hash does for a code), so revoking a family revokes
 *   the access tokens it produced without an index on access_tokens, which every exchange writes.
 *   `used_at` is set when a rotation replaces the token; a used token presented again is a replay.
 *   `expires_at` is the idle expiry, never past `family_expires_at` (the absolute one).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('apps', (t) => {
    t.string('grant_types', 255).notNullable().defaultTo('authorization_code');
  });
  await knex.schema.createTable('refresh_tokens', (t) => {
    t.string('token_hash', 64).primary();
    t.string('family_id', 64).notNullable().index();
    t.string('client_id', 64).notNullable().references('client_id').inTable('apps').onDelete('CASCADE');
    t.integer('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE').index();
    t.string('scopes', 255).notNullable();
    t.bigInteger('auth_time').notNullable();
    t.string('amr', 255).nullable();
    t.string('access_token_hash', 64).notNullable();
    t.bigInteger('family_expires_at').notNullable();
    t.bigInteger('expires_at').notNullable().index();
    t.bigInteger('used_at').nullable();
    t.bigInteger('revoked_at').nullable();
    t.bigInteger('created_at').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('refresh_tokens');
  await knex.schema.alterTable('apps', (t) => {
    t.dropColumn('grant_types');
  });
}
