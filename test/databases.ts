/**
 * The databases tests run on: a SQLite file, or with TEST_DATABASE=postgres a database of its own
 * on the server TEST_POSTGRES_URL names. Empty (freshDatabase: the migration suites), or with every
 * migration applied, copied from the run's template (migratedDatabase: every test server).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';

export function tempDir(prefix = 'idp-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Which database the API and store suites run on in this process. */
export const TEST_DATABASE: 'sqlite' | 'postgres' = process.env.TEST_DATABASE === 'postgres' ? 'postgres' : 'sqlite';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

let databases = 0;

async function onPostgres<T>(serverUrl: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** A new PostgreSQL database, a copy of `template` when given (CREATE DATABASE ... TEMPLATE). */
async function postgresDatabase(template?: string): Promise<TestDatabase> {
  const serverUrl = process.env.TEST_POSTGRES_URL;
  if (!serverUrl) throw new Error('a PostgreSQL database needs TEST_POSTGRES_URL (postgres://user@host:port/db)');
  const name = `idp_test_${process.pid}_${Date.now().toString(36)}_${++databases}`;
  await onPostgres(serverUrl, (client) => client.query(template ? `create database ${name} template ${template}` : `create database ${name}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => onPostgres(serverUrl, (client) => client.query(`drop database if exists ${name} with (force)`)).then(() => undefined),
  };
}

/** A new, empty database of the kind this run tests: a SQLite file in `dir`, or a PostgreSQL database. */
export async function freshDatabase(dir: string, dialect: 'sqlite' | 'postgres' = TEST_DATABASE): Promise<TestDatabase> {
  if (dialect === 'sqlite') return { url: path.join(dir, `test-${++databases}.sqlite`), drop: async () => {} };
  return postgresDatabase();
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's migrated database (test/migrated-template.ts); absent in runs without that setup. */
    migratedTemplate?: { dialect: 'sqlite' | 'postgres'; url: string };
  }
}

/**
 * A new database of the kind this run tests with every migration applied: a copy of the run's
 * template (a file copy, or CREATE DATABASE ... TEMPLATE), about 10 times cheaper than migrating
 * (35 ms on SQLite, 300 ms on PostgreSQL, for each of some 400 test servers). Empty when the run
 * has no template, or outside vitest (scripts/fuzz.ts); the server's own migrate() then makes it.
 */
export async function migratedDatabase(dir: string): Promise<TestDatabase> {
  const template = process.env.VITEST ? inject('migratedTemplate') : undefined;
  if (template?.dialect !== TEST_DATABASE) return freshDatabase(dir);
  if (template.dialect === 'postgres') return postgresDatabase(new URL(template.url).pathname.slice(1));
  const db = await freshDatabase(dir);
  fs.copyFileSync(template.url, db.url);
  return db;
}
