/**
 * Migration 010 on a database with apps, codes, tokens and grants: they all survive (SQLite
 * rebuilds `apps` to make `secret_hash` nullable, and dropping the old table with foreign keys
 * on would have cascaded into every code, token and grant), existing apps become confidential
 * apps without post-logout addresses, a public app can then be stored without a secret, and
 * foreign keys are enforced afterwards. Down and up again. Runs on SQLite and, with
 * TEST_DATABASE=postgres, on PostgreSQL.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { migrationSource } from '../../../src/store/migrations/index.js';
import { openStoreAt } from '../../../src/store/open.js';
import { freshDatabase, tempDir } from '../../helpers.js';

const NOW = 1_800_000_000_000;

describe('migration 010_public_clients', () => {
  it('keeps every app, code, token and grant, adds the columns, and makes the secret nullable', async () => {
    const dir = tempDir();
    const db = await freshDatabase(dir);
    const store = openStoreAt(db.url);
    const sqlite = (store.knex.client as { config: { client: string } }).config.client !== 'pg';
    const count = async (table: string) => Number(((await store.knex(table).count({ n: '*' })) as [{ n: number | string }])[0].n);
    try {
      const names = await migrationSource.getMigrations([]);
      const before = names.filter((n) => n < '010');
      for (let i = 0; i < before.length; i++) await store.knex.migrate.up({ migrationSource });
      const [{ id: userId }] = (await store.knex('users').insert({ name: 'early', name_key: 'early', email: 'e@example.com', password_hash: 'x', created_at: 1 }, ['id'])) as [{ id: number }];
      await store.knex('apps').insert({ client_id: 'app', secret_hash: 's'.repeat(64), owner_id: userId, name: 'App', redirect_uris: '["https://a.example/cb"]', created_at: 1 });
      await store.knex('auth_codes').insert({ code_hash: 'c'.repeat(64), client_id: 'app', user_id: userId, scopes: 'userinfo', expires_at: NOW, used_at: null, created_at: NOW });
      await store.knex('access_tokens').insert({ token_hash: 't'.repeat(64), client_id: 'app', user_id: userId, scopes: 'userinfo', code_hash: null, expires_at: NOW, revoked_at: null, created_at: NOW });
      await store.knex('grants').insert({ user_id: userId, client_id: 'app', scopes: 'userinfo', created_at: NOW, last_used_at: NOW });

      await store.migrate();
      expect([await count('auth_codes'), await count('access_tokens'), await count('grants')]).toEqual([1, 1, 1]);
      expect(await store.apps.getApp('app')).toEqual({
        clientId: 'app',
        secretHash: 's'.repeat(64),
        public: false,
        ownerId: userId,
        name: 'App',
        redirectUris: ['https://a.example/cb'],
        postLogoutRedirectUris: [],
        grantTypes: ['authorization_code'],
        createdAt: 1,
      });
      await store.apps.createApp({ clientId: 'pub', secretHash: null, public: true, ownerId: userId, name: 'Pub', redirectUris: ['https://p.example/cb'], postLogoutRedirectUris: ['https://p.example/'], grantTypes: ['authorization_code'], createdAt: 2 });
      expect((await store.apps.getApp('pub'))?.secretHash).toBeNull();
      if (sqlite) {
        // The connection enforces foreign keys again, and the rebuilt table left none dangling.
        expect(await store.knex.raw('pragma foreign_keys')).toEqual([{ foreign_keys: 1 }]);
        expect(await store.knex.raw('pragma foreign_key_check')).toEqual([]);
      }
      await expect(store.knex('auth_codes').insert({ code_hash: 'd'.repeat(64), client_id: 'no-such-app', user_id: userId, scopes: 'userinfo', expires_at: NOW, created_at: NOW })).rejects.toThrow();
      // The apps table still cascades into its codes, tokens and grants.
      expect(await store.apps.deleteApp('app')).toBe(true);
      expect([await count('auth_codes'), await count('access_tokens'), await count('grants')]).toEqual([0, 0, 0]);

      // Down (through the later migrations first): public apps go (they cannot exist without the
      // column), the secret is required again.
      const since = names.filter((n) => n >= '010');
      for (let i = 0; i < since.length; i++) await store.knex.migrate.down({ migrationSource });
      expect(await store.knex.schema.hasColumn('apps', 'public')).toBe(false);
      expect(await store.knex.schema.hasColumn('apps', 'post_logout_redirect_uris')).toBe(false);
      expect(await count('apps')).toBe(0);
      await expect(store.knex('apps').insert({ client_id: 'x', secret_hash: null, owner_id: userId, name: 'X', redirect_uris: '[]', created_at: 1 })).rejects.toThrow();
      await store.knex.migrate.up({ migrationSource });
      expect(await store.knex.schema.hasColumn('apps', 'public')).toBe(true);
      await store.migrate();
    } finally {
      await store.close();
      await db.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
