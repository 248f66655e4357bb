import type { Knex } from 'knex';

/**
 * Each user's recent sign-ins (time, client address, browser), shown to them on the account page
 * so they can spot a sign-in that was not theirs. Only the latest few per user are kept (the store
 * prunes on insert); rows go with their user.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sign_ins', (t) => {
    t.increments('id').primary();
    t.integer('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    // ms since epoch
    t.bigInteger('at').notNullable();
    t.string('ip', 64).notNullable();
    t.string('user_agent', 512).notNullable();
    t.index(['user_id', 'at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sign_ins');
}
