import type { Knex } from 'knex';

/**
 * Rate-limit counters, shared by every service instance on the database (rate-limiter-flexible's
 * RateLimiterPostgres / RateLimiterSQLite schema: one row per limiter key prefix + key).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('rate_limits', (t) => {
    t.string('key', 255).primary();
    t.integer('points').notNullable().defaultTo(0);
    // ms since epoch; rows past it count as empty and are purged by the limiter.
    t.bigInteger('expire').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('rate_limits');
}
