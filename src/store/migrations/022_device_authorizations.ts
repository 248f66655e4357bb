import type { Knex } from 'knex';

/**
 * The device authorization grant (RFC 8628).
 *
 * - `device_authorizations`: one row per device code, by the SHA-256 of the code (also the
 *   `family_id` of the refresh tokens it leads to). `user_code_hash` is the SHA-256 of the
 *   normalized user code: unique, so a drawn code that is taken (live or not yet purged) is drawn
 *   again. `interval_seconds` and `last_polled_at` count the device's polls (slow_down adds 5 s);
 *   `decision` ('approved' or 'denied'), `user_id` and `decided_at` are set once, by one
 *   conditional update; `auth_time` and `amr` (the ID token's) only with an approval. `used_at` is
 *   set when the device gets its tokens, once. `expires_at` is indexed for the purge, which
 *   deletes a row once it has expired, decided or not.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('device_authorizations', (t) => {
    t.string('device_code_hash', 64).primary();
    t.string('user_code_hash', 64).notNullable().unique();
    t.string('client_id', 64).notNullable().references('client_id').inTable('apps').onDelete('CASCADE');
    t.string('scopes', 255).notNullable();
    t.integer('interval_seconds').notNullable();
    t.bigInteger('last_polled_at').nullable();
    t.string('decision', 16).nullable();
    t.integer('user_id').nullable().references('id').inTable('users').onDelete('CASCADE');
    t.bigInteger('auth_time').nullable();
    t.string('amr', 255).nullable();
    t.bigInteger('decided_at').nullable();
    t.bigInteger('used_at').nullable();
    t.bigInteger('expires_at').notNullable().index();
    t.bigInteger('created_at').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('device_authorizations');
}
