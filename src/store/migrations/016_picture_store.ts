import type { Knex } from 'knex';

/**
 * `pictures`: on PostgreSQL, the WebP pictures themselves (docs/decisions.md#pictures-in-postgresql),
 * one row per user, pfpTimestamp and size, so instances share them through the database and need
 * no shared disk. The rows go with their user (foreign key, cascade). `created_at` (ms since
 * epoch) lets the start-up sweep leave alone rows of a change another instance is making right
 * now. Created on SQLite too, so both schemas stay alike; a SQLite database leaves it empty and
 * keeps its pictures in PICTURES_DIR. Files a PICTURES_DIR already holds are moved in at start on
 * PostgreSQL (src/pictures/pictures.ts, importPictureFiles), not here: a migration does not know
 * the directory.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('pictures', (t) => {
    t.integer('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.bigInteger('ts').notNullable();
    t.string('size', 16).notNullable();
    t.binary('bytes').notNullable();
    t.bigInteger('created_at').notNullable();
    t.primary(['user_id', 'ts', 'size']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('pictures');
}
