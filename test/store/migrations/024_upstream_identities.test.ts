/**
 * Migration 024 on a database with a user, an upstream and a sign-in: afterwards identities at
 * upstreams are linked to users, a linked (upstream, subject) refused, and the earlier sign-in
 * went through no upstream. Down drops the table and the column and keeps the rest. Runs on
 * SQLite and, with TEST_DATABASE=postgres, on PostgreSQL.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { UniqueViolation } from '../../../src/domain/errors.js';
import { migrationSource } from '../../../src/store/migrations/index.js';
import { openStoreAt } from '../../../src/store/open.js';
import { freshDatabase, tempDir } from '../../helpers.js';

const NOW = 1_800_000_000_000;

describe('migration 024_upstream_identities', () => {
  it('adds upstream_identities and sign_ins.upstream beside existing rows; down drops them and keeps the rest', async () => {
    const dir = tempDir();
    const db = await freshDatabase(dir);
    const store = openStoreAt(db.url);
    try {
      const names = await migrationSource.getMigrations([]);
      const before = names.filter((n) => n < '024');
      for (let i = 0; i < before.length; i++) await store.knex.migrate.up({ migrationSource });
      expect(await store.knex.schema.hasTable('upstream_identities')).toBe(false);
      expect(await store.knex.schema.hasColumn('sign_ins', 'upstream')).toBe(false);
      await store.knex('users').insert({ name: 'early', name_key: 'early', email: 'e@example.com', password_hash: 'x', created_at: 1 });
      const [userId] = (await store.knex('users').pluck('id')).map(Number) as [number];
      await store.knex('sign_ins').insert({ user_id: userId, at: NOW - 1, ip: '10.0.0.1', user_agent: 'Browser/1' });
      await store.knex('upstream_providers').insert({
        slug: 'acme',
        name: 'Acme',
        kind: 'oidc',
        issuer: 'https://acme.example',
        scopes: 'openid email',
        client_id: 'acme-client',
        client_secret_sealed: 'sealed',
        enabled: true,
        created_at: NOW - 1,
      });

      await store.migrate();
      expect(await store.knex.schema.hasTable('upstream_identities')).toBe(true);
      expect(await store.signIns.listSignIns(userId, 10)).toEqual([{ at: NOW - 1, ip: '10.0.0.1', userAgent: 'Browser/1', upstream: null }]);
      const link = await store.upstreamIdentities.linkUpstreamIdentity({ userId, upstreamSlug: 'acme', subject: 'sub-1', email: 'e@acme.example', createdAt: NOW });
      expect(link).toEqual({ id: link.id, userId, upstreamSlug: 'acme', upstreamName: 'Acme', subject: 'sub-1', email: 'e@acme.example', createdAt: NOW, lastUsedAt: null });
      await expect(store.upstreamIdentities.linkUpstreamIdentity({ userId, upstreamSlug: 'acme', subject: 'sub-1', email: null, createdAt: NOW })).rejects.toEqual(new UniqueViolation('upstreamIdentity'));
      await store.signIns.recordSignIn(userId, { at: NOW, ip: '10.0.0.2', userAgent: 'Browser/2', upstream: 'Acme' }, 20);
      expect((await store.signIns.listSignIns(userId, 10))[0]).toEqual({ at: NOW, ip: '10.0.0.2', userAgent: 'Browser/2', upstream: 'Acme' });

      // Down (through any later migrations first).
      const since = names.filter((n) => n >= '024');
      for (let i = 0; i < since.length; i++) await store.knex.migrate.down({ migrationSource });
      expect(await store.knex.schema.hasTable('upstream_identities')).toBe(false);
      expect(await store.knex.schema.hasColumn('sign_ins', 'upstream')).toBe(false);
      expect(await store.knex('users').pluck('name')).toEqual(['early']);
      expect(await store.knex('sign_ins').orderBy('at').pluck('ip')).toEqual(['10.0.0.1', '10.0.0.2']);
      expect(await store.knex('upstream_providers').pluck('slug')).toEqual(['acme']);
      await store.migrate();
      expect(await store.upstreamIdentities.listUpstreamIdentities(userId)).toEqual([]);
    } finally {
      await store.close();
      await db.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
