import type { Knex } from 'knex';

/** Whether a migration runs on PostgreSQL (some change only what PostgreSQL enforces or can hold). */
export const isPostgres = (knex: Knex): boolean => (knex.client as { config: { client: unknown } }).config.client === 'pg';
