/**
 * Migration 026 on a database with an upstream: afterwards the upstream's `mfa` is not trusted
 * (`trust_mfa` false, as every upstream added later), and can be turned on. Down drops the column
 * and keeps the upstream. Runs on SQLite and, with TEST_DATABASE=postgres, on PostgreSQL.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { migrationSource } from '../../../src/store/migrations/index.js';
import { openStoreAt } from '../../../src/store/open.js';
import { freshDatabase, tempDir } from '../../helpers.js';

const NOW = 1_800_000_000_000;

describe('migration 026_upstream_trust_mfa', () => {
  it('adds upstream_providers.trust_mfa, false for an upstream added before; down drops it and keeps the upstream', async () => {
    const dir = tempDir();
    const db = await freshDatabase(dir);
    const store = openStoreAt(db.url);
    try {
      const names = await migrationSource.getMigrations([]);
      const before = names.filter((n) => n < '026');
      for (let i = 0; i < before.length; i++) await store.knex.migrate.up({ migrationSource });
      expect(await store.knex.schema.hasColumn('upstream_providers', 'trust_mfa')).toBe(false);
      await store.knex('upstream_providers').insert({
        slug: 'acme',
        name: 'Acme',
        kind: 'oidc',
        issuer: 'https://acme.example',
        scopes: 'openid email',
        client_id: 'acme-client',
        client_secret_sealed: 'sealed',
        enabled: true,
        created_at: NOW,
      });

      await store.migrate();
      expect(await store.upstreams.getUpstream('acme')).toMatchObject({ slug: 'acme', enabled: true, trustMfa: false });
      expect(await store.upstreams.setUpstreamTrustMfa('acme', true)).toBe(true);
      expect(await store.upstreams.getUpstream('acme')).toMatchObject({ slug: 'acme', trustMfa: true });

      // Down (through any later migrations first).
      const since = names.filter((n) => n >= '026');
      for (let i = 0; i < since.length; i++) await store.knex.migrate.down({ migrationSource });
      expect(await store.knex.schema.hasColumn('upstream_providers', 'trust_mfa')).toBe(false);
      expect(await store.knex('upstream_providers').pluck('slug')).toEqual(['acme']);
      // Up again: the operator's choice went with the column; the upstream is untrusted again.
      await store.migrate();
      expect(await store.upstreams.getUpstream('acme')).toMatchObject({ slug: 'acme', trustMfa: false });
    } finally {
      await store.close();
      await db.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
