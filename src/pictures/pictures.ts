import { Conflict, NotFound, Unavailable } from '../domain/errors.js';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { LRUCache } from 'lru-cache';
import type { Metrics } from '../metrics/metrics.js';
import type { UserStore } from '../store/types.js';
import { encodePicture, SIZE_NAMES, type Encoded, type Size } from './images.js';

/** A full disk, or the user's quota used up. */
const DISK_FULL = new Set(['ENOSPC', 'EDQUOT']);

/**
 * Picture files live at <dir>/<size>/<id>-<pfpTimestamp>.webp, the same shape as their URL,
 * so a static server or CDN could serve the directory as it is.
 */
export class PictureFiles {
  /**
   * Bytes of recently served pictures. A file never changes under its name (a new picture gets a
   * new timestamp), and the handler checks the user's current pfpTimestamp in the database before
   * reading, so a cached entry can never serve a picture that is no longer current, on this
   * instance or any other.
   */
  private readonly cache = new LRUCache<string, Buffer>({ maxSize: 64 * 1024 * 1024, sizeCalculation: (b) => b.length });

  constructor(readonly dir: string) {}

  path(size: Size, userId: number, ts: number): string {
    return path.join(this.dir, size, `${userId}-${ts}.webp`);
  }

  async ensureDirs(): Promise<void> {
    await Promise.all(SIZE_NAMES.map((size) => fs.mkdir(path.join(this.dir, size), { recursive: true })));
  }

  async read(size: Size, userId: number, ts: number): Promise<Buffer | undefined> {
    const file = this.path(size, userId, ts);
    const cached = this.cache.get(file);
    if (cached) return cached;
    try {
      const bytes = await fs.readFile(file);
      this.cache.set(file, bytes);
      return bytes;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
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

  async removeAll(userId: number, ts: number): Promise<void> {
    const files = SIZE_NAMES.map((size) => this.path(size, userId, ts));
    for (const file of files) this.cache.delete(file);
    await this.removeFiles(files);
  }

  private async removeFiles(files: string[]): Promise<void> {
    await Promise.all(files.map((file) => fs.rm(file, { force: true })));
  }
}

interface PictureDeps {
  store: UserStore;
  files: PictureFiles;
  now: () => number;
  metrics?: Pick<Metrics, 'pictureConversion'>;
}

const MAX_ATTEMPTS = 20;

/**
 * Replaces a user's picture, in crash-safe order (docs/decisions.md#profile-pictures): write the new files, commit the new
 * pfpTimestamp (compare-and-set), then delete the old files. The new timestamp is always greater
 * than the old. Returns the new pfpTimestamp.
 */
export async function setPicture(deps: PictureDeps, userId: number, input: Buffer): Promise<number> {
  const images = await (deps.metrics ? timedConversion(deps.metrics, input) : encodePicture(input));
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const user = await deps.store.getUser(userId);
    if (!user) throw new NotFound(`User ${userId} not found`);
    const old = user.pfpTimestamp;
    let next = Math.max(deps.now(), (old ?? 0) + 1, user.pfpHighWater + 1);
    while (!(await deps.files.writeAll(userId, next, images))) next += 1;
    if (await deps.store.swapPfpTimestamp(userId, old, next)) {
      if (old !== null) await deps.files.removeAll(userId, old);
      return next;
    }
    // Another change committed first: drop our files and start again from its state.
    await deps.files.removeAll(userId, next);
  }
  throw new Conflict('The picture is being changed concurrently; try again');
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
    const user = await deps.store.getUser(userId);
    if (!user) throw new NotFound(`User ${userId} not found`);
    if (user.pfpTimestamp === null) return;
    if (await deps.store.swapPfpTimestamp(userId, user.pfpTimestamp, null, deps.now())) {
      await deps.files.removeAll(userId, user.pfpTimestamp);
      return;
    }
  }
  throw new Conflict('The picture is being changed concurrently; try again');
}

/**
 * Deletes picture files no committed pfpTimestamp points at, left by a crash between the steps of
 * setPicture (new files written but never committed, or old files not yet deleted), and stray
 * temporary files. Only files older than `minAgeMs` are touched: with several instances sharing the
 * directory, a younger file may belong to a change another instance is making right now (between
 * writing its files and committing its timestamp). Returns how many files were deleted.
 */
export async function sweepOrphanFiles(deps: PictureDeps, minAgeMs: number): Promise<number> {
  const cutoff = deps.now() - minAgeMs;
  const current = new Map<number, number | null>();
  let swept = 0;
  for (const size of SIZE_NAMES) {
    const dir = path.join(deps.files.dir, size);
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
        if (!current.has(userId)) current.set(userId, (await deps.store.getUser(userId))?.pfpTimestamp ?? null);
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
