/**
 * Several instances started at the same moment on an empty PostgreSQL database (test:pg): the
 * migrations run once, under an advisory lock, and every instance comes up. Without the lock, knex
 * races to create its own `knex_migrations` table and one instance fails to start.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationSource } from '../../../src/store/migrations/index.js';
import { openStoreAt } from '../../../src/store/open.js';
import { freshDatabase, tempDir, TEST_DATABASE, type TestDatabase } from '../../helpers.js';

describe.runIf(TEST_DATABASE === 'postgres')('migrate() by three instances at once on an empty PostgreSQL database', () => {
  let dir: string;
  const databases: TestDatabase[] = [];
  beforeAll(() => {
    dir = tempDir('idp-migrate-');
  });
  afterAll(async () => {
    for (const db of databases) await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  // Three tries: the race it guards against lost about one start in two.
  for (const attempt of [1, 2, 3]) {
    it(`all three succeed and each migration is recorded once (try ${attempt})`, async () => {
      const db = await freshDatabase(dir);
      databases.push(db);
      const stores = [openStoreAt(db.url), openStoreAt(db.url), openStoreAt(db.url)];
      try {
        const results = await Promise.allSettled(stores.map((store) => store.migrate()));
        expect(results.map((r) => (r.status === 'rejected' ? String(r.reason) : 'ok'))).toEqual(['ok', 'ok', 'ok']);
        const names = ((await stores[0]!.knex('knex_migrations').select('name').orderBy('id')) as { name: string }[]).map((r) => r.name);
        expect(names).toEqual(await migrationSource.getMigrations([]));
        for (const store of stores) expect(await store.users.countUsers()).toBe(0);
      } finally {
        await Promise.all(stores.map((store) => store.close()));
      }
    });
  }
});
