/**
 * A picture upload when the picture folder's disk is full: a clear 503, the old picture and its
 * files untouched, and no new or temporary file left behind. The disk is a 2 MB tmpfs the test
 * mounts, which needs root (test/preconditions.ts: CI runs as root; elsewhere skipped with a notice).
 * SQLite only: on PostgreSQL the pictures are in the database, whose full disk is an outage
 * (test/store/database-outage.test.ts), and PICTURES_DIR is only read.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, fixturesDir, signedInAgent, startServer, tempDir, TEST_DATABASE, type TestServer } from '../helpers.js';
import { precondition } from '../preconditions.js';

/** Mounts a 2 MB tmpfs on `dir`; undefined when it did, else why it could not. */
function mountTmpfs(dir: string): string | undefined {
  if (process.getuid?.() !== 0) return 'mounting a tmpfs needs root';
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', dir], { stdio: ['ignore', 'ignore', 'pipe'] });
    return undefined;
  } catch (err) {
    return `mount -t tmpfs failed (it needs root with the right to mount filesystems): ${String((err as { stderr?: Buffer }).stderr ?? err).trim()}`;
  }
}

const onSqlite = TEST_DATABASE === 'sqlite';
const mountPoint = tempDir('idp-full-disk-');
const cannotMount = onSqlite ? mountTmpfs(mountPoint) : 'PostgreSQL keeps the pictures in the database';
if (cannotMount !== undefined) fs.rmSync(mountPoint, { recursive: true, force: true });
const mounted = onSqlite && precondition('test/pictures/disk-full.test.ts', cannotMount === undefined, cannotMount ?? '');

let t: TestServer;
beforeAll(async () => {
  if (mounted) t = await startServer({ PICTURES_DIR: path.join(mountPoint, 'pictures') });
});
afterAll(async () => {
  await t?.close();
  if (mounted) execFileSync('umount', [mountPoint]);
  fs.rmSync(mountPoint, { recursive: true, force: true });
});

function upload(agent: Agent, file: Buffer, csrf: string): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(file)]), 'upload.bin');
  return agent.fetch('/api/account/picture', { method: 'PUT', body: form, headers: { 'X-CSRF-Token': csrf } });
}

/** Every file under the picture folder, with its bytes. */
function snapshot(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) files.set(path.join(entry.parentPath, entry.name), fs.readFileSync(path.join(entry.parentPath, entry.name)));
  }
  return files;
}

describe.skipIf(!mounted)('a picture upload on a full disk', () => {
  it('fails with a clear 503 and leaves the old picture, its files and nothing else', async () => {
    const { agent, user } = await signedInAgent(t);
    const csrf = await agent.csrf();
    const first = await upload(agent, fs.readFileSync(path.join(fixturesDir, 'photo.jpg')), csrf);
    expect(first.status).toBe(200);
    const old = (await t.store.users.getUser(user.id))!.pfpTimestamp;
    const pictures = path.join(mountPoint, 'pictures');
    const before = snapshot(pictures);
    expect(before.size).toBe(3);

    // Fill the disk.
    const filler = path.join(mountPoint, 'filler');
    try {
      fs.writeFileSync(filler, Buffer.alloc(4 * 1024 * 1024));
    } catch (err) {
      expect((err as NodeJS.ErrnoException).code).toBe('ENOSPC');
    }

    const res = await upload(agent, fs.readFileSync(path.join(fixturesDir, 'photo.jpg')), csrf);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ message: 'Not enough disk space to store the picture; nothing was changed, try again later' });
    expect((await t.store.users.getUser(user.id))!.pfpTimestamp).toBe(old);
    expect(snapshot(pictures)).toEqual(before);
    const served = await fetch(`${t.baseUrl}/pfp/large/${user.id}-${old}.webp`);
    expect(served.status).toBe(200);

    // Space again: the upload works.
    fs.rmSync(filler);
    expect((await upload(agent, fs.readFileSync(path.join(fixturesDir, 'photo.jpg')), csrf)).status).toBe(200);
  });
});
