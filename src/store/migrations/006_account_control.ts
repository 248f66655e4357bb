import type { Knex } from 'knex';

/**
 * People in control of their account:
 * - `grants`: which app a user let use their account, with which scopes, when first granted and
 *   when last used; remembered consent reads it, the account page lists and revokes it. Rows go
 *   with their user or their app.
 * - sessions get a public id (the account page addresses a session by it, never by the cookie
 *   value or its hash), when they started, when last seen and the browser's user agent.
 * - `retired_names`: names of deleted accounts, never given to anyone else (docs/account.md).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('grants', (t) => {
    t.integer('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('client_id', 64).notNullable().references('client_id').inTable('apps').onDelete('CASCADE');
    t.string('scopes', 255).notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('last_used_at').notNullable();
    t.primary(['user_id', 'client_id']);
    t.index(['client_id']);
  });

  await knex.schema.alterTable('sessions', (t) => {
    t.string('public_id', 32).nullable().unique();
    t.bigInteger('started_at').nullable();
    t.bigInteger('last_seen_at').nullable();
    t.string('user_agent', 512).nullable();
  });

  await knex.schema.createTable('retired_names', (t) => {
    t.string('name_key', 28).primary();
    t.bigInteger('retired_at').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('retired_names');
  await knex.schema.alterTable('sessions', (t) => {
    t.dropUnique(['public_id']);
    t.dropColumn('public_id');
    t.dropColumn('started_at');
    t.dropColumn('last_seen_at');
    t.dropColumn('user_agent');
  });
  await knex.schema.dropTable('grants');
}
