/**
 * Migration 020 on a database with signed-in sessions: they keep their data and meta and are
 * listed without an address (null: signed in before it was recorded); a session written after it
 * keeps its address. Down drops the column and keeps the sessions. Runs on SQLite and, with
 * TEST_DATABASE=postgres, on PostgreSQL.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { migrationSource } from '../../../src/store/migrations/index.js';
import { openStoreAt } from '../../../src/store/open.js';
import { freshDatabase, tempDir } from '../../helpers.js';

const NOW = 1_800_000_000_000;

describe('migration 020_session_addresses', () => {
  it('adds a nullable sign_in_ip to sessions: earlier sessions listed with none, later ones with theirs', async () => {
    const dir = tempDir();
    const db = await freshDatabase(dir);
    const store = openStoreAt(db.url);
    try {
      const names = await migrationSource.getMigrations([]);
      const before = names.filter((n) => n < '020');
      for (let i = 0; i < before.length; i++) await store.knex.migrate.up({ migrationSource });
      expect(await store.knex.schema.hasColumn('sessions', 'sign_in_ip')).toBe(false);
      const [{ id: userId }] = (await store.knex('users').insert({ name: 'early', name_key: 'early', email: 'e@example.com', password_hash: 'x', created_at: 1 }, ['id'])) as [{ id: number }];
      await store.knex('sessions').insert({ id_hash: 'a'.repeat(64), data: '{"userId":1}', expires_at: NOW + 1000, user_id: userId, public_id: 'pub-old', started_at: NOW, last_seen_at: NOW, user_agent: 'Old/1' });

      await store.migrate();
      expect(await store.knex.schema.hasColumn('sessions', 'sign_in_ip')).toBe(true);
      expect(await store.sessions.getSession('a'.repeat(64), NOW)).toBe('{"userId":1}');
      await store.sessions.setSession('b'.repeat(64), '{}', NOW + 1000, userId, { publicId: 'pub-new', startedAt: NOW + 1, lastSeenAt: NOW + 1, userAgent: 'New/2', signInIp: '2001:db8::7' });
      expect(await store.sessions.listUserSessions(userId, NOW)).toEqual([
        { publicId: 'pub-new', startedAt: NOW + 1, lastSeenAt: NOW + 1, userAgent: 'New/2', signInIp: '2001:db8::7' },
        { publicId: 'pub-old', startedAt: NOW, lastSeenAt: NOW, userAgent: 'Old/1', signInIp: null },
      ]);

      // Down (through any later migrations first).
      const since = names.filter((n) => n >= '020');
      for (let i = 0; i < since.length; i++) await store.knex.migrate.down({ migrationSource });
      expect(await store.knex.schema.hasColumn('sessions', 'sign_in_ip')).toBe(false);
      expect((await store.knex('sessions').orderBy('public_id').select('public_id')).map((r: { public_id: string }) => r.public_id)).toEqual(['pub-new', 'pub-old']);
      await store.migrate();
      expect(await store.knex.schema.hasColumn('sessions', 'sign_in_ip')).toBe(true);
    } finally {
      await store.close();
      await db.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
