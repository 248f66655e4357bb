import type { Knex } from 'knex';

/**
 * Passkeys (WebAuthn credentials, docs/account.md#passkeys): one row per credential a user
 * registered. The credential id (base64url) is unique across users: an authenticator's credential
 * belongs to one account. The public key is stored base64url (COSE); nothing here is secret, but
 * the export lists only names and dates. `counter` is the signature counter last seen (0 for
 * authenticators that keep none); `device_type` and `backed_up` are WebAuthn's backup flags, as
 * last seen. Rows go with their user.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('passkeys', (t) => {
    t.increments('id').primary();
    t.integer('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('credential_id', 1400).notNullable().unique();
    t.text('public_key').notNullable();
    t.bigInteger('counter').notNullable().defaultTo(0);
    // JSON array of the authenticator's transports (usb, nfc, ble, internal, hybrid, ...)
    t.string('transports', 256).notNullable().defaultTo('[]');
    // 'singleDevice' | 'multiDevice'
    t.string('device_type', 16).notNullable();
    t.boolean('backed_up').notNullable();
    t.string('name', 64).notNullable();
    // ms since epoch
    t.bigInteger('created_at').notNullable();
    t.bigInteger('last_used_at').nullable();
    t.index(['user_id', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('passkeys');
}
