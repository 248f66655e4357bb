/**
 * vitest's globalSetup: once per run, a database of the kind the run tests (TEST_DATABASE) with
 * every migration applied, which test servers copy instead of migrating their own
 * (test/databases.ts, migratedDatabase). Dropped when the run ends.
 */
import fs from 'node:fs';
import type { TestProject } from 'vitest/node';
import { openStoreAt } from '../src/store/open.js';
import { freshDatabase, TEST_DATABASE, tempDir } from './databases.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = tempDir('idp-template-');
  const db = await freshDatabase(dir);
  const store = openStoreAt(db.url);
  try {
    await store.migrate();
  } finally {
    // Closed before anything copies it: PostgreSQL copies a template nobody is connected to.
    await store.close();
  }
  project.provide('migratedTemplate', { dialect: TEST_DATABASE, url: db.url });
  return async () => {
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
}
