/**
 * Migration 022 on a database with an app: afterwards device authorizations are stored, their user
 * codes unique, and they go with their app. Down drops the table and keeps the apps. Runs on
 * SQLite and, with TEST_DATABASE=postgres, on PostgreSQL.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { DeviceAuthorizationRecord } from '../../../src/domain/device-authorizations.js';
import { UniqueViolation } from '../../../src/domain/errors.js';
import { migrationSource } from '../../../src/store/migrations/index.js';
import { openStoreAt } from '../../../src/store/open.js';
import { freshDatabase, tempDir } from '../../helpers.js';

const NOW = 1_800_000_000_000;

describe('migration 022_device_authorizations', () => {
  it('adds device_authorizations beside existing apps; down drops it and keeps the apps', async () => {
    const dir = tempDir();
    const db = await freshDatabase(dir);
    const store = openStoreAt(db.url);
    try {
      const names = await migrationSource.getMigrations([]);
      const before = names.filter((n) => n < '022');
      for (let i = 0; i < before.length; i++) await store.knex.migrate.up({ migrationSource });
      expect(await store.knex.schema.hasTable('device_authorizations')).toBe(false);
      const [{ id: userId }] = (await store.knex('users').insert({ name: 'early', name_key: 'early', email: 'e@example.com', password_hash: 'x', created_at: 1 }, ['id'])) as [{ id: number }];
      await store.knex('apps').insert({ client_id: 'app', secret_hash: null, public: true, owner_id: userId, name: 'App', redirect_uris: '["https://a.example/cb"]', created_at: 1 });

      await store.migrate();
      expect(await store.knex.schema.hasTable('device_authorizations')).toBe(true);
      const record: DeviceAuthorizationRecord = {
        deviceCodeHash: 'd'.repeat(64),
        userCodeHash: 'u'.repeat(64),
        clientId: 'app',
        scopes: ['openid', 'offline_access'],
        intervalSeconds: 5,
        lastPolledAt: null,
        decision: null,
        userId: null,
        authTime: null,
        amr: null,
        decidedAt: null,
        usedAt: null,
        expiresAt: NOW + 600_000,
        createdAt: NOW,
      };
      await store.deviceAuthorizations.createDeviceAuthorization(record);
      expect(await store.deviceAuthorizations.getDeviceAuthorizationByUserCode('u'.repeat(64))).toEqual(record);
      await expect(store.deviceAuthorizations.createDeviceAuthorization({ ...record, deviceCodeHash: 'e'.repeat(64) })).rejects.toBeInstanceOf(UniqueViolation);
      expect(await store.deviceAuthorizations.decideDeviceAuthorization('u'.repeat(64), NOW + 1, userId, { userId, authTime: NOW - 5, amr: ['pwd'] })).toBe(true);
      expect(await store.deviceAuthorizations.getDeviceAuthorizationByUserCode('u'.repeat(64))).toEqual({ ...record, decision: 'approved', userId, authTime: NOW - 5, amr: ['pwd'], decidedAt: NOW + 1 });

      // Down (through any later migrations first).
      const since = names.filter((n) => n >= '022');
      for (let i = 0; i < since.length; i++) await store.knex.migrate.down({ migrationSource });
      expect(await store.knex.schema.hasTable('device_authorizations')).toBe(false);
      expect(await store.knex('apps').pluck('client_id')).toEqual(['app']);
      await store.migrate();
      expect(await store.deviceAuthorizations.getDeviceAuthorizationByUserCode('u'.repeat(64))).toBeUndefined();
    } finally {
      await store.close();
      await db.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
