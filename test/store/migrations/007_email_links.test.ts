/**
 * Migration 007 on a database that already has users: they stay, unverified (nobody ever proved
 * their addresses), and their links go with them when a user is deleted. Runs on SQLite and, with
 * TEST_DATABASE=postgres, on PostgreSQL.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { migrationSource } from '../../../src/store/migrations/index.js';
import { openStoreAt } from '../../../src/store/open.js';
import { freshDatabase, tempDir } from '../../helpers.js';

describe('migration 007_email_links', () => {
  it('leaves existing users unverified, creates email_links, and deletes a user\'s links with the user', async () => {
    const dir = tempDir();
    const db = await freshDatabase(dir);
    const store = openStoreAt(db.url);
    try {
      const names = await migrationSource.getMigrations([]);
      const before = names.filter((n) => n < '007');
      for (let i = 0; i < before.length; i++) await store.knex.migrate.up({ migrationSource });
      await store.knex('users').insert({ name: 'old_timer', name_key: 'old_timer', email: 'old@example.com', password_hash: 'x', created_at: 1 });
      expect(await store.knex.schema.hasTable('email_links')).toBe(false);

      await store.migrate();
      const user = (await store.users.getUserByName('old_timer'))!;
      expect(user.email).toBe('old@example.com');
      expect(user.emailVerifiedAt).toBeNull();

      await store.emailLinks.createEmailLink({ tokenHash: 'a'.repeat(64), userId: user.id, purpose: 'verify', email: user.email, expiresAt: 10, usedAt: null, createdAt: 1 });
      await store.knex('users').where({ id: user.id }).delete();
      expect(await store.emailLinks.getEmailLink('a'.repeat(64))).toBeUndefined();

      // Down to before 007: later migrations are rolled back first.
      for (let i = names.filter((n) => n >= '007').length; i > 0; i--) await store.knex.migrate.down({ migrationSource });
      expect(await store.knex.schema.hasTable('email_links')).toBe(false);
      expect(await store.knex.schema.hasColumn('users', 'email_verified_at')).toBe(false);
    } finally {
      await store.close();
      await db.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
