import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('users', (t) => {
    t.increments('id').primary();
    t.string('name', 28).notNullable();
    // Lower-cased name: names are unique ignoring case, portably across SQLite and PostgreSQL.
    t.string('name_key', 28).notNullable().unique();
    t.string('email', 254).notNullable().unique();
    t.string('password_hash', 255).notNullable();
    t.text('bio').notNullable().defaultTo('');
    t.text('flairs').notNullable().defaultTo('["none"]');
    t.string('equipped_flair', 64).notNullable().defaultTo('none');
    t.integer('play_minutes').notNullable().defaultTo(0);
    t.bigInteger('last_heartbeat').notNullable().defaultTo(0);
    t.integer('mod_level').notNullable().defaultTo(0);
    t.bigInteger('pfp_timestamp').nullable();
    // The largest pfpTimestamp ever committed: a new picture's timestamp is always above it, so
    // an address of a removed picture is never reused for another image.
    t.bigInteger('pfp_high_water').notNullable().defaultTo(0);
    t.bigInteger('created_at').notNullable();
  });

  await knex.schema.createTable('apps', (t) => {
    t.string('client_id', 64).primary();
    t.string('secret_hash', 64).notNullable();
    t.integer('owner_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('name', 64).notNullable();
    t.text('redirect_uris').notNullable();
    t.bigInteger('created_at').notNullable();
    t.index(['owner_id']);
  });

  await knex.schema.createTable('auth_codes', (t) => {
    t.string('code_hash', 64).primary();
    t.string('client_id', 64).notNullable().references('client_id').inTable('apps').onDelete('CASCADE');
    t.integer('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('scopes', 255).notNullable();
    t.text('redirect_uri').nullable();
    t.string('code_challenge', 128).nullable();
    t.bigInteger('expires_at').notNullable();
    t.bigInteger('used_at').nullable();
    t.bigInteger('created_at').notNullable();
    t.index(['expires_at']);
  });

  await knex.schema.createTable('access_tokens', (t) => {
    t.string('token_hash', 64).primary();
    t.string('client_id', 64).notNullable().references('client_id').inTable('apps').onDelete('CASCADE');
    t.integer('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('scopes', 255).notNullable();
    // Not a foreign key: the code row may be purged while its tokens still live.
    t.string('code_hash', 64).nullable().index();
    t.bigInteger('expires_at').notNullable().index();
    t.bigInteger('revoked_at').nullable();
    t.bigInteger('created_at').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('access_tokens');
  await knex.schema.dropTable('auth_codes');
  await knex.schema.dropTable('apps');
  await knex.schema.dropTable('users');
}
