import type { Knex } from 'knex';

/**
 * The authenticator app (TOTP, RFC 6238) as a second factor, and its recovery codes
 * (docs/account.md#authenticator-app-and-recovery-codes, docs/decisions.md#authenticator-app-seeds):
 * - `totp_factors`: one row per user: the seed only sealed (a JWE under a key derived from
 *   SESSION_SECRET), `confirmed_at` null while the setup waits for its first code, and
 *   `last_step`, the 30-second time step of the last code accepted (a code is taken once);
 * - `recovery_codes`: single-use codes by their SHA-256 (scrypt of it since migration 018), `used_at` once used.
 * Rows go with their user (deleteUser deletes them; the foreign keys cascade too).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('totp_factors', (t) => {
    t.integer('user_id').primary().references('id').inTable('users').onDelete('CASCADE');
    t.text('secret_jwe').notNullable();
    t.bigInteger('confirmed_at').nullable();
    t.bigInteger('last_step').nullable();
    t.bigInteger('created_at').notNullable();
  });
  await knex.schema.createTable('recovery_codes', (t) => {
    t.integer('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('code_hash', 64).notNullable();
    t.bigInteger('used_at').nullable();
    t.bigInteger('created_at').notNullable();
    t.primary(['user_id', 'code_hash']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('recovery_codes');
  await knex.schema.dropTable('totp_factors');
}
