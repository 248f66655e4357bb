import type { Knex } from 'knex';

/**
 * A session keeps the client address it signed in from (`sign_in_ip`, the address the sign-in
 * history records: Koa's `ctx.ip`, trusted-proxy aware), so the account page can tell two
 * sessions of the same browser apart. Null for sessions signed in before it was recorded.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sessions', (t) => {
    t.string('sign_in_ip', 64).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sessions', (t) => {
    t.dropColumn('sign_in_ip');
  });
}
