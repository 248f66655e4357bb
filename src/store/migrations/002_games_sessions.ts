import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('games', (t) => {
    t.increments('id').primary();
    t.integer('author_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('title', 64).notNullable();
    t.text('url').notNullable();
    t.bigInteger('created_at').notNullable();
    t.index(['author_id']);
  });

  await knex.schema.createTable('sessions', (t) => {
    // SHA-256 of the session id in the cookie: a leaked table does not hand out live sessions.
    t.string('id_hash', 64).primary();
    t.text('data').notNullable();
    t.bigInteger('expires_at').notNullable().index();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sessions');
  await knex.schema.dropTable('games');
}
