import type { Knex } from 'knex';

/**
 * Upstream identity providers (issue 41, first step): the operator's registry, so every instance
 * sees the same set.
 *
 * - `upstream_providers`: one row per provider, by its slug (lowercase a-z, 0-9 and dashes, made
 *   from the shown `name`; the callback address carries it). `kind` is 'oidc' (then `issuer` is
 *   set) or 'oauth2' (then the three endpoints and `claim_mapping`, JSON text naming which member
 *   of the user-info answer gives the subject, name, email and, where there is one, the email's
 *   verified flag). `preset` names the preset its settings were copied from, or is null. `scopes`
 *   are space-separated. `client_secret_sealed` is the client secret only as a JWE sealed under
 *   SESSION_SECRET (src/security/sealed.ts), never in the clear. `enabled` false keeps the row but
 *   offers no sign-in.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('upstream_providers', (t) => {
    t.string('slug', 64).primary();
    t.string('name', 64).notNullable();
    t.string('kind', 16).notNullable();
    t.string('preset', 16).nullable();
    t.string('issuer', 2048).nullable();
    t.string('authorization_endpoint', 2048).nullable();
    t.string('token_endpoint', 2048).nullable();
    t.string('userinfo_endpoint', 2048).nullable();
    t.text('claim_mapping').nullable();
    t.string('scopes', 1024).notNullable();
    t.string('client_id', 255).notNullable();
    t.text('client_secret_sealed').notNullable();
    t.boolean('enabled').notNullable();
    t.bigInteger('created_at').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('upstream_providers');
}
