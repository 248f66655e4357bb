import type { Knex } from 'knex';

/**
 * Public clients (docs/oauth.md#public-clients): `apps.public` (a client without a secret, which
 * must use PKCE), `apps.post_logout_redirect_uris` (JSON text, like `redirect_uris`) and a nullable
 * `apps.secret_hash` (null for a public app).
 *
 * SQLite cannot change a column's nullability: knex rebuilds the table (create a copy, copy the
 * rows, drop the old one, rename). Dropping `apps` while foreign keys are enforced would cascade
 * into every code, token and grant of every app, and SQLite ignores `PRAGMA foreign_keys` inside
 * a transaction, so this migration runs outside knex's migration transaction: knex then turns the
 * pragma off around its own transaction for the rebuild, runs `foreign_key_check`, and turns it
 * back on. Each step is idempotent, so a crash between them is repaired by running it again. On
 * PostgreSQL everything runs in one transaction of its own.
 */
export const config = { transaction: false };

const isSqlite = (knex: Knex): boolean => (knex.client as { config: { client: string } }).config.client !== 'pg';

async function addColumns(knex: Knex): Promise<void> {
  const hasPublic = await knex.schema.hasColumn('apps', 'public');
  const hasLogout = await knex.schema.hasColumn('apps', 'post_logout_redirect_uris');
  if (hasPublic && hasLogout) return;
  await knex.schema.alterTable('apps', (t) => {
    if (!hasPublic) t.boolean('public').notNullable().defaultTo(false);
    if (!hasLogout) t.text('post_logout_redirect_uris').notNullable().defaultTo('[]');
  });
}

export async function up(knex: Knex): Promise<void> {
  if (isSqlite(knex)) {
    await addColumns(knex);
    await knex.schema.alterTable('apps', (t) => {
      t.setNullable('secret_hash');
    });
    return;
  }
  await knex.transaction(async (trx) => {
    await addColumns(trx);
    await trx.schema.alterTable('apps', (t) => {
      t.setNullable('secret_hash');
    });
  });
}

/** Down: public apps cannot exist without the column (their codes and tokens go with them). */
export async function down(knex: Knex): Promise<void> {
  const steps = async (k: Knex) => {
    await k('apps').where({ public: true }).delete();
    await k('apps').whereNull('secret_hash').delete();
    await k.schema.alterTable('apps', (t) => {
      t.dropNullable('secret_hash');
    });
    await k.schema.alterTable('apps', (t) => {
      t.dropColumn('public');
      t.dropColumn('post_logout_redirect_uris');
    });
  };
  if (isSqlite(knex)) await steps(knex);
  else await knex.transaction((trx) => steps(trx));
}
