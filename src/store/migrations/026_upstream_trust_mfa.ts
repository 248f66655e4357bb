import type { Knex } from 'knex';

/**
 * Whether an upstream's `amr` `mfa` counts as a second factor here (issue 50;
 * docs/account.md#trusting-an-upstreams-mfa): `upstream_providers.trust_mfa`, false for every
 * upstream until the operator turns it on (`admin upstream update --trust-mfa`). Before this
 * migration every upstream's `mfa` counted: after it, none does until the operator says so.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('upstream_providers', (t) => {
    t.boolean('trust_mfa').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('upstream_providers', (t) => {
    t.dropColumn('trust_mfa');
  });
}
