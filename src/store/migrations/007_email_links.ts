import type { Knex } from 'knex';

/**
 * Verified addresses and the one-time links that prove them (issue 14).
 *
 * `users.email_verified_at`: when the current address was proven (ms), NULL while unproven. Users
 * that exist before this migration are left unverified: nobody ever proved they own those addresses,
 * and vouching for them is exactly the hole verification closes. They verify from the account page
 * (or the consent page) in one click and one mail; until then the `email` scope is refused for them.
 *
 * `email_links`: verification, password-reset and change-of-address links, by the SHA-256 of their
 * token only. `email` is the address the link proves (the current one for `verify`, the new one for
 * `change`; NULL for `reset`). Rows go with their user.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.bigInteger('email_verified_at').nullable();
  });
  await knex.schema.createTable('email_links', (t) => {
    t.string('token_hash', 64).primary();
    t.integer('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('purpose', 16).notNullable();
    t.string('email', 254).nullable();
    t.bigInteger('expires_at').notNullable();
    t.bigInteger('used_at').nullable();
    t.bigInteger('created_at').notNullable();
    t.index(['user_id']);
    t.index(['expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('email_links');
  await knex.schema.alterTable('users', (t) => {
    t.dropColumn('email_verified_at');
  });
}
