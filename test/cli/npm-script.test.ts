/**
 * The operator CLI as an operator runs it: `npm run admin -- ...`, a real process (tsx, commander,
 * the exit code), over the database a running server uses. The commands themselves are tested
 * in-process in admin.test.ts; this file is in the `slow` project (vitest.config.ts): it starts
 * real processes.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, tempDir, type TestServer } from '../helpers.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

let dir: string;
let env: NodeJS.ProcessEnv;
let t: TestServer;
let n = 0;
const uniqueName = () => `cli_${process.pid}_${++n}`;

beforeAll(async () => {
  dir = tempDir('idp-cli-');
  env = { DATABASE_URL: path.join(dir, 'cli.sqlite'), PICTURES_DIR: path.join(dir, 'pics'), LOG_LEVEL: 'silent' };
  // The real server over the same database, to prove the command wrote where the server reads.
  t = await startServer({ DATABASE_URL: env.DATABASE_URL, PICTURES_DIR: env.PICTURES_DIR, DEMO_DATA: 'false' });
});
afterAll(async () => {
  await t?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('npm run admin', () => {
  it('runs the real command through the npm script and prints one JSON line', async () => {
    const name = uniqueName();
    const { stdout, stderr } = await promisify(execFile)(
      'npm',
      ['run', '--silent', 'admin', '--', 'user', 'create', '--name', name, '--email', `${name}@example.com`, '--password', 'password-123'],
      { cwd: root, env: { ...process.env, ...env }, timeout: 60_000 },
    );
    expect(stderr).toBe('');
    expect(stdout.endsWith('\n')).toBe(true);
    expect(stdout.slice(0, -1)).not.toContain('\n');
    const created = JSON.parse(stdout) as { id: number; name: string };
    expect(Object.keys(created).sort()).toEqual(['id', 'name']);
    expect(created.name).toBe(name);
    // Written to the same database the server uses.
    expect((await t.store.users.getUser(created.id))?.name).toBe(name);
  }, 60_000);

  it('a failing real command exits non-zero with the error on stderr and nothing on stdout', async () => {
    const err = await promisify(execFile)('npm', ['run', '--silent', 'admin', '--', 'user', 'show', '--id', '999999'], {
      cwd: root,
      env: { ...process.env, ...env },
      timeout: 60_000,
    }).then(
      () => undefined,
      (e: unknown) => e as { code: number; stdout: string; stderr: string },
    );
    expect(err).toBeDefined();
    expect(err!.code).toBe(3);
    expect(err!.stdout).toBe('');
    expect(err!.stderr).toBe('error: User 999999 not found\n');
  }, 60_000);
});
