import { Conflict, NotFound, Unavailable } from '../domain/errors.js';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { LRUCache } from 'lru-cache';
import type { Metrics } from '../metrics/metrics.js';
import type { DatabaseLocation } from '../domain/database.js';
import { encodePicture, SIZE_NAMES, type Encoded, type Size } from './images.js';
import type { Store } from '../store/types.js';

/** A full disk, or the user's quota used up. */
const DISK_FULL = new Set(['ENOSPC', 'EDQUOT']);

/**
 * Where the pictures' bytes live: a directory on SQLite (PictureFiles), the database on
 * PostgreSQL (DatabasePictures), so that instances sharing PostgreSQL share pictures without a
 * shared disk (docs/decisions.md#pictures-in-postgresql). picturesFor picks one by the database.
 *
 * Both keep recently served pictures in memory (LRU, bounded by bytes). A picture never changes
 * under its key (a new picture gets a new timestamp), and the handler checks the user's current
 * pfpTimestamp in the database before reading, so a cached entry can never serve a picture that
 * was replaced or removed, on this instance or any other: the old address answers 404 everywhere
 * from the moment the change commits, and its cached bytes simply age out of the LRU.
 */
export abstract class PictureStore {
  abstract readonly kind: 'directory' | 'database';
  private readonly cache = new LRUCache<string, Buffer>({ maxSize: 64 * 1024 * 1024, sizeCalculation: (b) => b.length });

  async read(size: Size, userId: number, ts: number): Promise<Buffer | undefined> {
    const key = `${size}/${userId}-${ts}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const bytes = await this.load(size, userId, ts);
    if (bytes) this.cache.set(key, bytes);
    return bytes;
  }

  /** Stores every size for (userId, ts); false (storing nothing) when that timestamp is taken. */
  abstract writeAll(userId: number, ts: number, images: Encoded): Promise<boolean>;

  async removeAll(userId: number, ts: number): Promise<void> {
    for (const size of SIZE_NAMES) this.cache.delete(`${size}/${userId}-${ts}`);
    await this.remove(userId, ts);
  }

  /**
   * Deletes stored pictures no committed pfpTimestamp points at (a crash between the steps of
   * setPicture), at least `minAgeMs` old: younger ones may belong to a change another instance is
   * making right now. Returns how many were deleted (files, or rows).
   */
  abstract sweep(deps: { store: Pick<Store, 'users'>; now: () => number }, minAgeMs: number): Promise<number>;

  protected abstract load(size: Size, userId: number, ts: number): Promise<Buffer | undefined>;
  protected abstract remove(userId: number, ts: number): Promise<void>;
}

/** The picture store for a database: PostgreSQL stores them in its `pictures` table, SQLite in `dir`. */
export function picturesFor(config: { database: DatabaseLocation; picturesDir: string }, store: Pick<Store, 'pictures'>, now: () => number): PictureStore {
  return config.database.dialect === 'postgres' ? new DatabasePictures(store, now) : new PictureFiles(config.picturesDir);
}

/** PostgreSQL: one row per user, pfpTimestamp and size (migration 016_picture_store). */
class DatabasePictures extends PictureStore {
  readonly kind = 'database';

  constructor(
    private readonly store: Pick<Store, 'pictures'>,
    private readonly now: () => number,
  ) {
    super();
  }

  writeAll(userId: number, ts: number, images: Encoded): Promise<boolean> {
    return this.store.pictures.insertPictures(userId, ts, images, this.now());
  }

  protected load(size: Size, userId: number, ts: number): Promise<Buffer | undefined> {
    return this.store.pictures.getPicture(userId, ts, size);
  }

  protected remove(userId: number, ts: number): Promise<void> {
    return this.store.pictures.deletePictures(userId, ts);
  }

  sweep(deps: { now: () => number }, minAgeMs: number): Promise<number> {
    return this.store.pictures.sweepPictures(deps.now() - minAgeMs);
  }
}

/**
 * SQLite: picture files live at <dir>/<size>/<id>-<pfpTimestamp>.webp, the same shape as their
 * URL, so a static server or CDN could serve the directory as it is.
 */
export class PictureFiles extends PictureStore {
  readonly kind = 'directory';

  constructor(readonly dir: string) {
    super();
  }

  path(size: Size, userId: number, ts: number): string {
    return path.join(this.dir, size, `${userId}-${ts}.webp`);
  }

  async ensureDirs(): Promise<void> {
    await Promise.all(SIZE_NAMES.map((size) => fs.mkdir(path.join(this.dir, size), { recursive: true })));
  }

  protected async load(size: Size, userId: number, ts: number): Promise<Buffer | undefined> {
    return readIfExists(this.path(size, userId, ts));
  }

  /**
   * Writes the three files for (userId, ts). Each lands under its final name by a hard link of a
   * fully written, fsynced temporary file: atomic, and exclusive, so two writers can never
   * share a timestamp. Returns false (writing nothing) when files for that timestamp exist.
   */
  async writeAll(userId: number, ts: number, images: Encoded): Promise<boolean> {
    const linked: string[] = [];
    try {
      await this.ensureDirs();
      for (const size of SIZE_NAMES) {
        const final = this.path(size, userId, ts);
        const tmp = path.join(this.dir, size, `.${userId}-${ts}.${randomBytes(6).toString('hex')}.tmp`);
        const handle = await fs.open(tmp, 'wx');
        try {
          try {
            await handle.writeFile(images[size]);
            await handle.sync();
          } finally {
            await handle.close();
          }
          try {
            await fs.link(tmp, final);
            linked.push(final);
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
              await this.removeFiles(linked);
              return false;
            }
            throw err;
          }
        } finally {
          // Also when the write itself failed (a full disk): no temporary file is left behind.
          await fs.rm(tmp, { force: true });
        }
      }
      return true;
    } catch (err) {
      await this.removeFiles(linked);
      if (DISK_FULL.has((err as NodeJS.ErrnoException).code ?? '')) {
        throw new Unavailable('Not enough disk space to store the picture; nothing was changed, try again later');
      }
      throw err;
    }
  }

  protected async remove(userId: number, ts: number): Promise<void> {
    await this.removeFiles(SIZE_NAMES.map((size) => this.path(size, userId, ts)));
  }

  private async removeFiles(files: string[]): Promise<void> {
    await Promise.all(files.map((file) => fs.rm(file, { force: true })));
  }

  /** Also stray temporary files; a file this service does not write is left alone. Ages by mtime. */
  async sweep(deps: { store: Pick<Store, 'users'>; now: () => number }, minAgeMs: number): Promise<number> {
    const cutoff = deps.now() - minAgeMs;
    const current = new Map<number, number | null>();
    let swept = 0;
    for (const size of SIZE_NAMES) {
      const dir = path.join(this.dir, size);
      let names: string[];
      try {
        names = await fs.readdir(dir);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw err;
      }
      for (const name of names) {
        const file = path.join(dir, name);
        const stat = await fs.stat(file).catch(() => undefined);
        if (!stat?.isFile() || stat.mtimeMs > cutoff) continue;
        const match = /^(\d+)-(\d+)\.webp$/.exec(name);
        if (match) {
          const userId = Number(match[1]);
          if (!current.has(userId)) current.set(userId, (await deps.store.users.getUser(userId))?.pfpTimestamp ?? null);
          if (current.get(userId) === Number(match[2])) continue;
        } else if (!/^\.\d+-\d+\.[0-9a-f]+\.tmp$/.test(name)) {
          continue; // not a file this service writes: leave it alone
        }
        await fs.rm(file, { force: true });
        swept += 1;
      }
    }
    return swept;
  }
}

async function readIfExists(file: string): Promise<Buffer | undefined> {
  try {
    return await fs.readFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

interface PictureDeps {
  store: Pick<Store, 'users'>;
  pictures: PictureStore;
  now: () => number;
  metrics?: Pick<Metrics, 'pictureConversion'>;
}

const MAX_ATTEMPTS = 20;

/**
 * Replaces a user's picture, in crash-safe order (docs/decisions.md#profile-pictures): write the new files, commit the new
 * pfpTimestamp (compare-and-set), then delete the old files. The new timestamp is always greater
 * than the old. Returns the new pfpTimestamp. NotFound when the user is gone, also when their
 * account is deleted while the change is in flight: the deletion removes the pictures it knows of,
 * and this change removes (or, refused by PostgreSQL's foreign key, never stored) its own.
 */
export async function setPicture(deps: PictureDeps, userId: number, input: Buffer): Promise<number> {
  const images = await (deps.metrics ? timedConversion(deps.metrics, input) : encodePicture(input));
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const user = await deps.store.users.getUser(userId);
    if (!user) throw userGone(userId);
    const old = user.pfpTimestamp;
    let next = Math.max(deps.now(), (old ?? 0) + 1, user.pfpHighWater + 1);
    while (!(await writeUnlessGone(deps, userId, next, images))) next += 1;
    if (await deps.store.users.swapPfpTimestamp(userId, old, next)) {
      if (old !== null) await deps.pictures.removeAll(userId, old);
      return next;
    }
    // Another change committed first: drop our files and start again from its state.
    await deps.pictures.removeAll(userId, next);
  }
  throw new Conflict('The picture is being changed concurrently; try again');
}

/**
 * The user is gone: never there, or their account was deleted while the change was in flight
 * (the deletion removed their pictures; this change leaves none behind either).
 */
function userGone(userId: number): NotFound {
  return new NotFound(`User ${userId} not found`);
}

/**
 * PictureStore.writeAll, where a write that fails because the user was deleted meanwhile (on
 * PostgreSQL the rows' foreign key refuses them; the insert stored nothing) is that user gone,
 * not a server error.
 */
async function writeUnlessGone(deps: PictureDeps, userId: number, ts: number, images: Encoded): Promise<boolean> {
  try {
    return await deps.pictures.writeAll(userId, ts, images);
  } catch (err) {
    if (!(await deps.store.users.getUser(userId))) throw userGone(userId);
    throw err;
  }
}

async function timedConversion(metrics: Pick<Metrics, 'pictureConversion'>, input: Buffer): Promise<Encoded> {
  const start = performance.now();
  try {
    const images = await encodePicture(input);
    metrics.pictureConversion((performance.now() - start) / 1000, 'ok');
    return images;
  } catch (err) {
    metrics.pictureConversion((performance.now() - start) / 1000, 'failed');
    throw err;
  }
}

/** Removes a user's picture: unset pfpTimestamp, then delete the files. */
export async function removePicture(deps: PictureDeps, userId: number): Promise<void> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const user = await deps.store.users.getUser(userId);
    if (!user) throw userGone(userId);
    if (user.pfpTimestamp === null) return;
    if (await deps.store.users.swapPfpTimestamp(userId, user.pfpTimestamp, null, deps.now())) {
      await deps.pictures.removeAll(userId, user.pfpTimestamp);
      return;
    }
  }
  throw new Conflict('The picture is being changed concurrently; try again');
}

/** Deletes stored pictures left by an interrupted change (PictureStore.sweep); run at start. */
export function sweepOrphanPictures(deps: PictureDeps, minAgeMs: number): Promise<number> {
  return deps.pictures.sweep(deps, minAgeMs);
}

/**
 * PostgreSQL: moves the pictures an earlier PICTURES_DIR holds into the database, for every user
 * whose current pfpTimestamp has no rows yet and whose three files are in `dir`. Run at every
 * start on PostgreSQL (one query when there is nothing to do) and by `admin picture import`;
 * files are read, never deleted (the operator removes the directory once done). Returns how many
 * users' pictures were imported and how many have no files to import (they show no picture: 404).
 */
export async function importPictureFiles(
  deps: { store: Pick<Store, 'users' | 'pictures'>; pictures: PictureStore },
  dir: string,
): Promise<{ imported: number; missing: number }> {
  if (deps.pictures.kind !== 'database') return { imported: 0, missing: 0 };
  const files = new PictureFiles(dir);
  let imported = 0;
  let missing = 0;
  for (const { id, pfpTimestamp } of await deps.store.pictures.usersWithoutPictureRows()) {
    const found = await Promise.all(SIZE_NAMES.map((size) => readIfExists(files.path(size, id, pfpTimestamp))));
    if (found.some((bytes) => bytes === undefined)) {
      missing += 1;
      continue;
    }
    const images = Object.fromEntries(SIZE_NAMES.map((size, i) => [size, found[i]!])) as Encoded;
    // False when another instance imported the same picture meanwhile: that counts as done.
    await deps.pictures.writeAll(id, pfpTimestamp, images);
    imported += 1;
  }
  return { imported, missing };
}
