/**
 * Migration 021 on a database with an app: the app keeps working and gets grant_types
 * `authorization_code` alone; afterwards an app may have the refresh grant and refresh tokens are
 * stored. Down drops the table and the column and keeps the apps. Runs on SQLite and, with
 * TEST_DATABASE=postgres, on PostgreSQL.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REDEEMED } from '../../../src/domain/apps.js';
import type { RefreshTokenRecord } from '../../../src/domain/refresh-tokens.js';
import { migrationSource } from '../../../src/store/migrations/index.js';
import { openStoreAt } from '../../../src/store/open.js';
import { freshDatabase, tempDir } from '../../helpers.js';

const NOW = 1_800_000_000_000;

describe('migration 021_refresh_tokens', () => {
  it('gives existing apps grant_types authorization_code, adds refresh_tokens; down drops both and keeps the apps', async () => {
    const dir = tempDir();
    const db = await freshDatabase(dir);
    const store = openStoreAt(db.url);
    try {
      const names = await migrationSource.getMigrations([]);
      const before = names.filter((n) => n < '021');
      for (let i = 0; i < before.length; i++) await store.knex.migrate.up({ migrationSource });
      expect(await store.knex.schema.hasColumn('apps', 'grant_types')).toBe(false);
      expect(await store.knex.schema.hasTable('refresh_tokens')).toBe(false);
      const [{ id: userId }] = (await store.knex('users').insert({ name: 'early', name_key: 'early', email: 'e@example.com', password_hash: 'x', created_at: 1 }, ['id'])) as [{ id: number }];
      await store.knex('apps').insert({ client_id: 'app', secret_hash: 's'.repeat(64), owner_id: userId, name: 'App', redirect_uris: '["https://a.example/cb"]', created_at: 1 });

      await store.migrate();
      expect(await store.knex.schema.hasColumn('apps', 'grant_types')).toBe(true);
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
      await store.apps.createApp({
        clientId: 'offline',
        secretHash: null,
        public: true,
        ownerId: userId,
        name: 'Offline',
        redirectUris: ['https://o.example/cb'],
        postLogoutRedirectUris: [],
        grantTypes: ['authorization_code', 'refresh_token'],
        createdAt: 2,
      });
      expect((await store.apps.getApp('offline'))?.grantTypes).toEqual(['authorization_code', 'refresh_token']);
      const codeHash = 'c'.repeat(64);
      await store.apps.createCode({
        codeHash,
        clientId: 'offline',
        userId,
        scopes: ['openid', 'offline_access'],
        redirectUri: 'https://o.example/cb',
        codeChallenge: 'x'.repeat(43),
        nonce: null,
        authTime: NOW,
        amr: null,
        expiresAt: NOW + 300_000,
        usedAt: null,
        createdAt: NOW,
      });
      const refresh: RefreshTokenRecord = {
        tokenHash: 'r'.repeat(64),
        familyId: codeHash,
        clientId: 'offline',
        userId,
        scopes: ['openid', 'offline_access'],
        authTime: NOW,
        amr: null,
        accessTokenHash: 't'.repeat(64),
        familyExpiresAt: NOW + 7_776_000_000,
        expiresAt: NOW + 1_209_600_000,
        usedAt: null,
        revokedAt: null,
        createdAt: NOW,
      };
      const access = { tokenHash: 't'.repeat(64), clientId: 'offline', userId, scopes: ['openid', 'offline_access'], codeHash, expiresAt: NOW + 600_000, revokedAt: null, createdAt: NOW };
      expect(await store.refreshTokens.redeemCodeWithRefresh(codeHash, NOW, access, refresh)).toEqual(REDEEMED);
      expect(await store.refreshTokens.getRefreshToken('r'.repeat(64))).toEqual(refresh);

      // Down (through any later migrations first).
      const since = names.filter((n) => n >= '021');
      for (let i = 0; i < since.length; i++) await store.knex.migrate.down({ migrationSource });
      expect(await store.knex.schema.hasTable('refresh_tokens')).toBe(false);
      expect(await store.knex.schema.hasColumn('apps', 'grant_types')).toBe(false);
      expect((await store.knex('apps').orderBy('client_id').select('client_id')).map((r: { client_id: string }) => r.client_id)).toEqual(['app', 'offline']);
      await store.migrate();
      expect((await store.apps.getApp('offline'))?.grantTypes).toEqual(['authorization_code']);
      expect(await store.refreshTokens.getRefreshToken('r'.repeat(64))).toBeUndefined();
    } finally {
      await store.close();
      await db.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
