/** Operator CLI for running the service: `backup` (SQLite online backup) and exit 5 when the database is unavailable. */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/admin.js';
import { UNAVAILABLE_MESSAGE } from '../../src/store/outage.js';
import { makeUser, signedInAgent, startServer, tempDir, type TestServer } from '../helpers.js';

let dir: string;
let t: TestServer;

async function cli(env: NodeJS.ProcessEnv, ...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { env, stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
  return { code, stdout, stderr };
}

beforeAll(async () => {
  dir = tempDir('idp-backup-');
  t = await startServer({ DATABASE_URL: path.join(dir, 'live.sqlite'), PICTURES_DIR: path.join(dir, 'pictures'), DEMO_DATA: 'false' });
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('backup', () => {
  it('copies the live database consistently while writes continue, and the copy serves', async () => {
    const env = { DATABASE_URL: t.config.databaseUrl, PICTURES_DIR: t.config.picturesDir };
    const before = await Promise.all(Array.from({ length: 20 }, () => makeUser(t)));
    let writing = true;
    const writes = (async () => {
      while (writing) {
        await makeUser(t);
        // better-sqlite3 answers without a trip through the event loop: yield, as real requests do.
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const out = path.join(dir, 'copy.sqlite');
    const run = await cli(env, 'backup', '--out', out);
    writing = false;
    await writes;

    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({
      file: out,
      bytes: fs.statSync(out).size,
      pictures: {
        dir: t.config.picturesDir,
        layout: 'large/ medium/ small/ each holding <userId>-<pfpTimestamp>.webp',
        copy: `right after this backup, copy ${t.config.picturesDir} too (e.g. cp -a ${t.config.picturesDir} <backup-dir>/pictures)`,
      },
    });
    const copy = new Database(out, { readonly: true });
    try {
      expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
      const ids = new Set((copy.prepare('select id from users').all() as { id: number }[]).map((r) => r.id));
      expect(before.filter((u) => !ids.has(u.id))).toEqual([]);
    } finally {
      copy.close();
    }

    // Restoring is starting a service on the copy: the users are there and can sign in.
    const restored = await startServer({ DATABASE_URL: out, DEMO_DATA: 'false' });
    try {
      const res = await fetch(`${restored.baseUrl}/api/users/info?id=${before[0]!.id}`);
      expect(res.status).toBe(200);
      await signedInAgent(restored);
    } finally {
      await restored.close();
    }
  });

  it('never overwrites a file (exit 4), and refuses PostgreSQL with the pg_dump pointer (exit 1)', async () => {
    const existing = path.join(dir, 'existing.sqlite');
    fs.writeFileSync(existing, 'keep me');
    expect(await cli({ DATABASE_URL: t.config.databaseUrl }, 'backup', '--out', existing)).toEqual({
      code: 4,
      stdout: '',
      stderr: `error: ${existing} already exists; choose a new file name\n`,
    });
    expect(fs.readFileSync(existing, 'utf8')).toBe('keep me');
    expect(await cli({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/x' }, 'backup', '--out', path.join(dir, 'pg.sqlite'))).toEqual({
      code: 1,
      stdout: '',
      stderr: "error: backup copies a SQLite database; for PostgreSQL use pg_dump, which covers the pictures too (see docs/operations.md#backups)\n",
    });
  });
});

describe('an unavailable database', () => {
  it('exits 5 with a clear message', async () => {
    // Port 1 on this machine: nothing listens there, so the connection is refused at once.
    expect(await cli({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/idp' }, 'user', 'show', '--id', '1')).toEqual({
      code: 5,
      stdout: '',
      stderr: `error: ${UNAVAILABLE_MESSAGE}\n`,
    });
  });
});
