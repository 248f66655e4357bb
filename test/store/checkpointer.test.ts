import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { startCheckpointer } from '../../src/store/checkpointer.js';
import { tempDir } from '../helpers.js';

/**
 * Whether a checkpoint has copied every frame of the WAL into the database file, read from the
 * WAL index (the -shm file; SQLite's "WAL-index format": the header's mxFrame at byte 16, the
 * checkpoint info's nBackfill at byte 96, both native-endian 32-bit), without checkpointing.
 */
function walBackfilled(file: string): boolean {
  const shm = fs.readFileSync(`${file}-shm`);
  const mxFrame = shm.readUInt32LE(16);
  const nBackfill = shm.readUInt32LE(96);
  return mxFrame > 0 && nBackfill === mxFrame;
}

describe('the WAL checkpointer thread', () => {
  it('copies committed pages back and lets the WAL restart, without the writer checkpointing', async () => {
    const file = path.join(tempDir('idp-ckpt-'), 'db.sqlite');
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    // The writer never checkpoints by itself here: only the thread can.
    db.pragma('wal_autocheckpoint = 0');
    db.exec('create table t (v text)');
    const insert = db.prepare('insert into t values (?)');
    const fill = () => db.transaction(() => {
      for (let i = 0; i < 2000; i++) insert.run('x'.repeat(200));
    })();
    fill();
    // In WAL mode the rows are only in the WAL until a checkpoint copies them into the file.
    const fileBefore = fs.statSync(file).size;
    expect(fileBefore).toBeLessThan(100_000);
    expect(walBackfilled(file)).toBe(false);
    const checkpointer = startCheckpointer(file);
    try {
      // Within a few rounds once the thread has started (loading the driver takes longer than a
      // round): a round has finished when the WAL index says every frame is copied back
      // (nBackfill == mxFrame). The file's size alone is reached while the round still runs.
      await vi.waitFor(() => expect(walBackfilled(file)).toBe(true), { timeout: 5000, interval: 20 });
      expect(fs.statSync(file).size).toBeGreaterThan(400_000);
      // Everything in the WAL is in the database file: the next write starts the WAL over
      // instead of growing it.
      const walBefore = fs.statSync(`${file}-wal`).size;
      insert.run('after');
      expect(fs.statSync(`${file}-wal`).size).toBe(walBefore);
      expect((db.prepare('select count(*) as n from t').get() as { n: number }).n).toBe(2001);
    } finally {
      await checkpointer.stop();
      db.close();
    }
  });
});
