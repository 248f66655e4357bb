/**
 * docs/operations.md's SQLite backup, run as written (issue 51: its `rsync -a "$PICTURES_DIR"/ ...`
 * copied the whole filesystem when PICTURES_DIR was unset, the default): the block after the
 * marker, run with bash in a service's folder of its own (a temporary folder with a copy of the
 * repository's code) while the service runs there on its defaults (./data/, demo data with a picture),
 * neither DATABASE_URL nor PICTURES_DIR set. The backup holds the database and the pictures, and
 * nothing more.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { spawnCollected, spawnService, type SpawnedService } from '../spawn-service.js';
import { tempDir } from '../helpers.js';

const root = path.resolve(import.meta.dirname, '..', '..');
const MARKER = '<!-- test/docs/backups.test.ts runs this block as written -->';

/** The fenced block right after the marker. */
function documentedBlock(): string {
  const doc = fs.readFileSync(path.join(root, 'docs/operations.md'), 'utf8');
  const at = doc.indexOf(MARKER);
  expect(at, 'docs/operations.md has the marked backup block').toBeGreaterThan(-1);
  const block = /^```sh\n([\s\S]*?)^```$/m.exec(doc.slice(at + MARKER.length));
  expect(block?.index, 'the marker is right before the block').toBe(1);
  return block![1]!;
}

/** Every file under `dir`, relative, sorted. */
function tree(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

let dir: string;
let service: SpawnedService | undefined;

beforeAll(async () => {
  dir = tempDir('idp-backup-doc-');
  // A service's folder: a copy of the code (the CLI runs only as its own entry point, which a
  // linked src/ would not be), the packages, the contract and the game SDK linked in, the data its own.
  fs.cpSync(path.join(root, 'src'), path.join(dir, 'src'), { recursive: true });
  for (const name of ['package.json', 'node_modules', 'openapi.yaml', 'generated', 'client', 'tsconfig.json']) fs.symlinkSync(path.join(root, name), path.join(dir, name));
  service = await spawnService({ cwd: dir, env: { LOG_LEVEL: 'warn' }, readySeconds: 60 });
}, 90_000);
afterAll(async () => {
  await service?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

it('the documented backup, run as written beside a running service on its defaults, copies the database and its pictures and nothing else', async () => {
  const pictures = path.join(dir, 'data', 'pictures');
  expect(tree(pictures).length, 'the demo data has a picture').toBeGreaterThanOrEqual(3);
  const run = spawnCollected('bash', ['-c', documentedBlock()], { cwd: dir, env: { PATH: process.env.PATH, HOME: dir } });
  expect({ code: await run.ended, stderr: run.stderr() }).toEqual({ code: 0, stderr: '' });

  const backups = path.join(dir, 'backups');
  const [folder, ...others] = fs.readdirSync(backups);
  expect(others).toEqual([]);
  const backup = path.join(backups, folder!);
  expect(folder).toBe(`idp-${execFileSync('date', ['+%F']).toString().trim()}`);
  // The answer is echoed, naming the file and the folder it then copied.
  const answer = JSON.parse(run.stdout()) as { file: string; pictures: { dir: string } };
  expect([answer.file, answer.pictures.dir]).toEqual([path.join(backup, 'idp.sqlite'), pictures]);

  expect(fs.readdirSync(backup).sort()).toEqual(['idp.sqlite', 'pictures']);
  expect(tree(path.join(backup, 'pictures'))).toEqual(tree(pictures));
  for (const file of tree(pictures)) expect(fs.readFileSync(path.join(backup, 'pictures', file)).equals(fs.readFileSync(path.join(pictures, file)))).toBe(true);
  const copy = new Database(path.join(backup, 'idp.sqlite'), { readonly: true });
  try {
    expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(copy.prepare('select name from users order by id').pluck().all()).toEqual(['demo', 'player_two']);
  } finally {
    copy.close();
  }
}, 60_000);
