/**
 * `admin backup`: a consistent copy of the SQLite database while the service keeps running,
 * through SQLite's online backup API (better-sqlite3's db.backup): the copy is one point in time,
 * WAL content included, and the service keeps reading and writing meanwhile. PostgreSQL has pg_dump
 * for this, which covers the pictures too: they are rows of the `pictures` table there (docs/operations.md#backups).
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Conflict, InvalidInput, NotFound, Unavailable } from '../domain/errors.js';
import type { DatabaseLocation } from '../domain/database.js';

interface BackupResult {
  /** The copy, as an absolute path. */
  file: string;
  bytes: number;
}

export async function backupSqlite(database: DatabaseLocation, out: string): Promise<BackupResult> {
  if (database.dialect === 'postgres') {
    throw new InvalidInput('backup copies a SQLite database; for PostgreSQL use pg_dump, which covers the pictures too (see docs/operations.md#backups)');
  }
  const source = database.file;
  if (source === ':memory:') throw new InvalidInput('An in-memory database cannot be backed up');
  if (!fs.existsSync(source)) throw new NotFound(`No database at ${source}`);
  const target = path.resolve(out);
  // Never overwrite: an earlier backup may be the only good copy there is.
  if (fs.existsSync(target)) throw new Conflict(`${target} already exists; choose a new file name`);
  if (!fs.existsSync(path.dirname(target))) throw new InvalidInput(`Directory ${path.dirname(target)} does not exist`);
  const db = new Database(source, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    // All remaining pages in one step, under one read transaction: copied in small steps, every
    // write by the running service would restart the copy, which could then never finish. In
    // WAL mode the read does not block the service's writes.
    await db.backup(target, { progress: () => 0x7fffffff });
  } catch (err) {
    fs.rmSync(target, { force: true });
    const code = (err as { code?: string }).code ?? '';
    if (/^SQLITE_(BUSY|LOCKED|FULL|IOERR)/.test(code)) throw new Unavailable(`Backup failed: ${code}`);
    throw err;
  } finally {
    db.close();
  }
  return { file: target, bytes: fs.statSync(target).size };
}
