import type { Knex } from 'knex';

/**
 * One table of what each security event ends (issue 50; src/domain/security-events.ts).
 *
 * - `users.credentials_changed_at`: the last change of a credential or sign-out of every browser
 *   (ms since epoch; null while there was none). A code, a device approval or a pending link
 *   confirmation made before it is refused, even one written after the change's transaction.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.bigInteger('credentials_changed_at').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  // Native on both databases (SQLite 3.35+): knex's SQLite drop copies the table, and dropping the
  // old users table would cascade into every table that references it.
  await knex.raw('alter table users drop column credentials_changed_at');
}
