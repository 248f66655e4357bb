import type { Knex } from 'knex';

/**
 * Signing in through upstream identity providers (issue 41, second step).
 *
 * - `upstream_identities`: one row per account at an upstream linked to an account here. A
 *   (upstream_slug, subject) pair is linked to one account at most (unique); an account may have
 *   several. `email` is what the upstream said when the link was made (null when it said
 *   nothing); `last_used_at` is the last sign-in through it (null until there is one). Rows go
 *   with their user and with their upstream (removing an upstream removes its links).
 * - `sign_ins.upstream`: the shown name of the upstream a sign-in went through; null for any
 *   other sign-in (and for every sign-in recorded before).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('upstream_identities', (t) => {
    t.increments('id').primary();
    t.integer('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('upstream_slug', 64).notNullable().references('slug').inTable('upstream_providers').onDelete('CASCADE');
    t.string('subject', 255).notNullable();
    t.string('email', 254).nullable();
    // ms since epoch
    t.bigInteger('created_at').notNullable();
    t.bigInteger('last_used_at').nullable();
    t.unique(['upstream_slug', 'subject']);
    t.index('user_id');
  });
  await knex.schema.alterTable('sign_ins', (t) => {
    t.string('upstream', 64).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sign_ins', (t) => {
    t.dropColumn('upstream');
  });
  await knex.schema.dropTable('upstream_identities');
}
