/**
 * Migration 023 on a database with a user: afterwards upstream providers are stored by slug, a
 * taken slug refused. Down drops the table and keeps the users. Runs on SQLite and, with
 * TEST_DATABASE=postgres, on PostgreSQL.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { UniqueViolation } from '../../../src/domain/errors.js';
import type { UpstreamRecord } from '../../../src/domain/upstreams.js';
import { migrationSource } from '../../../src/store/migrations/index.js';
import { openStoreAt } from '../../../src/store/open.js';
import { freshDatabase, tempDir } from '../../helpers.js';

const NOW = 1_800_000_000_000;

describe('migration 023_upstream_providers', () => {
  it('adds upstream_providers beside existing users; down drops it and keeps the users', async () => {
    const dir = tempDir();
    const db = await freshDatabase(dir);
    const store = openStoreAt(db.url);
    try {
      const names = await migrationSource.getMigrations([]);
      const before = names.filter((n) => n < '023');
      for (let i = 0; i < before.length; i++) await store.knex.migrate.up({ migrationSource });
      expect(await store.knex.schema.hasTable('upstream_providers')).toBe(false);
      await store.knex('users').insert({ name: 'early', name_key: 'early', email: 'e@example.com', password_hash: 'x', created_at: 1 });

      await store.migrate();
      expect(await store.knex.schema.hasTable('upstream_providers')).toBe(true);
      const record: UpstreamRecord = {
        slug: 'discord',
        name: 'Discord',
        kind: 'oauth2',
        preset: 'discord',
        issuer: null,
        authorizationEndpoint: 'https://discord.com/oauth2/authorize',
        tokenEndpoint: 'https://discord.com/api/oauth2/token',
        userinfoEndpoint: 'https://discord.com/api/users/@me',
        claimMapping: { subject: 'id', name: 'username', email: 'email', emailVerified: 'verified' },
        scopes: ['identify', 'email'],
        clientId: 'discord-client',
        clientSecretSealed: 'sealed',
        enabled: true,
        trustMfa: false,
        createdAt: NOW,
      };
      await store.upstreams.addUpstream(record);
      expect(await store.upstreams.getUpstream('discord')).toEqual(record);
      await expect(store.upstreams.addUpstream({ ...record, name: 'DISCORD' })).rejects.toBeInstanceOf(UniqueViolation);
      expect(await store.upstreams.setUpstreamEnabled('discord', false)).toBe(true);
      expect(await store.upstreams.listUpstreams()).toEqual([{ ...record, enabled: false }]);

      // Down (through any later migrations first).
      const since = names.filter((n) => n >= '023');
      for (let i = 0; i < since.length; i++) await store.knex.migrate.down({ migrationSource });
      expect(await store.knex.schema.hasTable('upstream_providers')).toBe(false);
      expect(await store.knex('users').pluck('name')).toEqual(['early']);
      await store.migrate();
      expect(await store.upstreams.listUpstreams()).toEqual([]);
    } finally {
      await store.close();
      await db.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
