import type { Knex } from 'knex';

/**
 * A moderator may remove a user's game (`remove_game`, docs/moderation.md): the record keeps which
 * game it was, by id and by the title it had, since the game row itself is gone. Null on every
 * other action. No foreign key, like the rest of the record: it outlives what it names.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('moderation_actions', (t) => {
    t.integer('game_id').nullable();
    t.string('game_title', 64).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('moderation_actions', (t) => {
    t.dropColumn('game_id');
    t.dropColumn('game_title');
  });
}
