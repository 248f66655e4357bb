import type { Knex } from 'knex';

/**
 * How the person signed in, on the codes issued to them (docs/oauth.md#how-the-person-signed-in-amr-and-acr):
 * `auth_codes.amr`, the session's RFC 8176 values space-separated (`pwd otp mfa`), for the ID
 * token's `amr` and `acr` (acr is derived from amr: docs/decisions.md#acr-values). Null for a
 * code no sign-in stands behind (the operator CLI's) and for codes issued before this migration.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('auth_codes', (t) => {
    t.string('amr', 64).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('auth_codes', (t) => {
    t.dropColumn('amr');
  });
}
