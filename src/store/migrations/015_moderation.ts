import type { Knex } from 'knex';

/**
 * Moderation (docs/moderation.md):
 * - on `users`: the suspension (`suspension_reason`, `suspended_at`, `suspended_until`, null
 *   while it lasts until lifted; an `until` in the past means not suspended) and the bio a
 *   moderator removed (`bio_removed_reason`, `bio_removed_at`, cleared when the user writes a bio);
 * - `reports`: users' reports on other users. At most one open report per reporter and user (a
 *   partial unique index where `closed_at` is null, on both databases). Rows go with either user.
 * - `moderation_actions`: the record of what moderators (or the operator CLI: no moderator) did.
 *   It names users by id and by name (names never change and are never reused), and has no
 *   foreign keys: it outlives the accounts it names, as the operator's record.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.string('suspension_reason', 500).nullable();
    t.bigInteger('suspended_at').nullable();
    t.bigInteger('suspended_until').nullable();
    t.string('bio_removed_reason', 500).nullable();
    t.bigInteger('bio_removed_at').nullable();
  });
  await knex.schema.createTable('reports', (t) => {
    t.increments('id').primary();
    t.integer('reporter_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.integer('target_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('reason', 32).notNullable();
    t.string('text', 500).nullable();
    // ms since epoch
    t.bigInteger('created_at').notNullable();
    t.bigInteger('closed_at').nullable();
    // The moderator who closed it; no foreign key: a closed report outlives its moderator's account.
    t.integer('closed_by').nullable();
    t.string('outcome', 32).nullable();
    // A target's reports, open and closed.
    t.index(['target_id', 'created_at']);
  });
  // One open report per reporter and user; the queue of open reports, oldest first.
  await knex.raw('create unique index reports_open_reporter_target on reports (reporter_id, target_id) where closed_at is null');
  await knex.raw('create index reports_open_created on reports (created_at, id) where closed_at is null');
  await knex.schema.createTable('moderation_actions', (t) => {
    t.increments('id').primary();
    t.integer('moderator_id').nullable();
    t.string('moderator_name', 28).nullable();
    t.integer('target_id').notNullable();
    t.string('target_name', 28).notNullable();
    t.string('action', 32).notNullable();
    t.string('reason', 500).nullable();
    t.bigInteger('until').nullable();
    t.integer('mod_level').nullable();
    t.integer('report_id').nullable();
    t.string('outcome', 32).nullable();
    t.bigInteger('created_at').notNullable();
    // One user's history, newest first.
    t.index(['target_id', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('moderation_actions');
  await knex.schema.dropTable('reports');
  await knex.schema.alterTable('users', (t) => {
    t.dropColumn('suspension_reason');
    t.dropColumn('suspended_at');
    t.dropColumn('suspended_until');
    t.dropColumn('bio_removed_reason');
    t.dropColumn('bio_removed_at');
  });
}
