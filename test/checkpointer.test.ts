import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { startCheckpointer } from '../src/store/checkpointer.js';
import { tempDir } from './helpers.js';

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
    const checkpointer = startCheckpointer(file);
    try {
      // Within a few rounds once the thread has started (loading the driver takes longer than a round).
      await vi.waitFor(() => expect(fs.statSync(file).size).toBeGreaterThan(400_000), { timeout: 5000, interval: 20 });
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
