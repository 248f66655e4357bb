import type { Knex } from 'knex';

/**
 * Sessions know whose they are, so a user's sessions can be listed and ended together (sign out
 * everywhere, password change or reset, account deletion). Rows of a deleted user go with it.
 * Existing rows keep user_id NULL until their next write; signed-out sessions stay NULL.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sessions', (t) => {
    t.integer('user_id').nullable().references('id').inTable('users').onDelete('CASCADE');
    t.index(['user_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sessions', (t) => {
    t.dropIndex(['user_id']);
    t.dropColumn('user_id');
  });
}
