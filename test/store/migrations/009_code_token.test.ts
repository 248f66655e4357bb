/**
 * Migration 009 on a database with codes already redeemed: each code's row gets the token it was
 * redeemed for, so a replay of such a code after the upgrade still revokes that token; the index
 * of tokens by code goes, and comes back on the way down. Runs on SQLite and, with
 * TEST_DATABASE=postgres, on PostgreSQL.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { migrationSource } from '../../../src/store/migrations/index.js';
import { openStoreAt } from '../../../src/store/open.js';
import { freshDatabase, tempDir } from '../../helpers.js';

const NOW = 1_800_000_000_000;

describe('migration 009_code_token', () => {
  it('links redeemed codes to their tokens, so a replay after the upgrade revokes the token issued before it', async () => {
    const dir = tempDir();
    const db = await freshDatabase(dir);
    const store = openStoreAt(db.url);
    try {
      const names = await migrationSource.getMigrations([]);
      const before = names.filter((n) => n < '009');
      for (let i = 0; i < before.length; i++) await store.knex.migrate.up({ migrationSource });
      const [{ id: userId }] = (await store.knex('users').insert({ name: 'early', name_key: 'early', email: 'e@example.com', password_hash: 'x', created_at: 1 }, ['id'])) as [{ id: number }];
      await store.knex('apps').insert({ client_id: 'app', secret_hash: 's', owner_id: userId, name: 'App', redirect_uris: '["https://a.example/cb"]', created_at: 1 });
      const codeRow = (c: string, usedAt: number | null) => ({ code_hash: c.repeat(64), client_id: 'app', user_id: userId, scopes: 'userinfo', expires_at: NOW + 60_000, used_at: usedAt, created_at: NOW });
      const tokenRow = (t: string, codeHash: string | null) => ({ token_hash: t.repeat(64), client_id: 'app', user_id: userId, scopes: 'userinfo', code_hash: codeHash, expires_at: NOW + 600_000, revoked_at: null, created_at: NOW });
      // Code a was redeemed for token A before the upgrade; code b never was; token C came from no code.
      await store.knex('auth_codes').insert([codeRow('a', NOW), codeRow('b', null)]);
      await store.knex('access_tokens').insert([tokenRow('A', 'a'.repeat(64)), tokenRow('C', null)]);

      await store.migrate();
      expect(await store.knex('auth_codes').orderBy('code_hash').select('code_hash', 'token_hash')).toEqual([
        { code_hash: 'a'.repeat(64), token_hash: 'A'.repeat(64) },
        { code_hash: 'b'.repeat(64), token_hash: null },
      ]);
      // The replay of code a revokes token A (and nothing else); code b has no token to revoke.
      expect(await store.apps.revokeTokensOfCode('a'.repeat(64), NOW + 1)).toBe(1);
      expect(await store.apps.revokeTokensOfCode('b'.repeat(64), NOW + 1)).toBe(0);
      expect(await store.knex('access_tokens').orderBy('token_hash').select('token_hash', 'revoked_at')).toEqual([
        { token_hash: 'A'.repeat(64), revoked_at: (store.knex.client as { config: { client: string } }).config.client === 'pg' ? String(NOW + 1) : NOW + 1 },
        { token_hash: 'C'.repeat(64), revoked_at: null },
      ]);

      // Down to before 009 (through the later migrations): the column goes, the index comes back.
      const since = names.filter((n) => n >= '009');
      for (let i = 0; i < since.length; i++) await store.knex.migrate.down({ migrationSource });
      expect(await store.knex.schema.hasColumn('auth_codes', 'token_hash')).toBe(false);
      for (let i = 0; i < since.length; i++) await store.knex.migrate.up({ migrationSource });
      expect(await store.knex.schema.hasColumn('auth_codes', 'token_hash')).toBe(true);
      // And up again to the latest.
      await store.migrate();
    } finally {
      await store.close();
      await db.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
