import type { Knex } from 'knex';
import { isPostgres } from './dialect.js';

/**
 * Recovery codes are kept as scrypt strings (`scrypt$N$r$p$salt$hash`, about 90 characters) instead
 * of a 64-character SHA-256 (docs/decisions.md#recovery-codes): PostgreSQL's column grows to hold
 * them. SQLite does not enforce a varchar length, so nothing changes there. The rows themselves
 * are re-hashed at start (src/accounts/second-factor.ts upgradeRecoveryCodes), which needs code.
 */

export async function up(knex: Knex): Promise<void> {
  if (!isPostgres(knex)) return;
  await knex.raw('alter table recovery_codes alter column code_hash type varchar(128)');
}

export async function down(knex: Knex): Promise<void> {
  if (!isPostgres(knex)) return;
  await knex.raw('alter table recovery_codes alter column code_hash type varchar(64)');
}
