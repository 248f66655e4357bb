/**
 * src/pictures: encoding (sizes, crop, limits, bad input) and the picture store (timestamps, races):
 * files in PICTURES_DIR on SQLite, rows of `pictures` on PostgreSQL (TEST_DATABASE=postgres).
 */
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/admin.js';
import { DomainError } from '../../src/domain/errors.js';
import { httpErrorOf } from '../../src/http/error-responses.js';
import { encodePicture, MAX_UPLOAD_BYTES, SIZES, SIZE_NAMES, type Encoded } from '../../src/pictures/images.js';
import { importPictureFiles, PictureFiles, removePicture, setPicture, sweepOrphanPictures } from '../../src/pictures/pictures.js';
import { publicUser } from '../fixtures/users.js';
import { fixturesDir, makeUser, startServer, storedPicture, storedPictures, tempDir, TEST_DATABASE, type TestServer } from '../helpers.js';

const fixture = (name: string): Buffer => fs.readFileSync(path.join(fixturesDir, name));

const NOT_AN_IMAGE = 'The picture must be a JPEG, PNG, WebP, GIF or AVIF image';
const DAMAGED = 'The picture could not be read: the file is damaged or truncated';
const TOO_MANY_PIXELS = 'The picture has too many pixels: at most 50 megapixels';

async function expectRefusal(promise: Promise<unknown>, status: number, message: string): Promise<void> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  expect({ status: httpErrorOf(err)?.status, message: (err as DomainError).message }).toEqual({ status, message });
}

/** RGB(A) of one pixel of an encoded image. */
async function pixel(image: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(image).raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * info.channels;
  return Array.from(data.subarray(i, i + info.channels));
}

async function expectThreeWebps(encoded: Encoded): Promise<void> {
  expect(Object.keys(encoded).sort()).toEqual(['large', 'medium', 'small']);
  for (const size of SIZE_NAMES) {
    const meta = await sharp(encoded[size]).metadata();
    expect({ size, format: meta.format, width: meta.width, height: meta.height, pages: meta.pages ?? 1 }).toEqual({
      size,
      format: 'webp',
      width: SIZES[size],
      height: SIZES[size],
      pages: 1,
    });
  }
}

const isRed = ([r, g, b]: number[]) => r! > 170 && g! < 80 && b! < 80;
const isBlue = ([r, g, b]: number[]) => b! > 170 && r! < 80 && g! < 130;

describe('encodePicture', () => {
  it('turns the 640x480 JPEG into three WebPs of exact sizes', async () => {
    await expectThreeWebps(await encodePicture(fixture('photo.jpg')));
  });

  it('crops the centre square of a landscape photo (keeps the centre, does not squash)', async () => {
    const { large } = await encodePicture(fixture('photo.jpg'));
    // photo.jpg: red for x < 213 and x >= 427, blue between. Centre pixel (320,240) is
    // rgb(10+15, 40+30, 200) = (25, 70, 200).
    const [r, g, b] = await pixel(large, 128, 128);
    expect(Math.abs(r! - 25)).toBeLessThanOrEqual(12);
    expect(Math.abs(g! - 70)).toBeLessThanOrEqual(12);
    expect(Math.abs(b! - 200)).toBeLessThanOrEqual(12);
    // The crop is x 80..560 of the source, so the blue band spans x 71..185 of the output;
    // squashed, it would span 85..171 instead. Columns 80 and 176 tell the two apart.
    expect(isBlue(await pixel(large, 80, 128))).toBe(true);
    expect(isBlue(await pixel(large, 176, 128))).toBe(true);
    expect(isRed(await pixel(large, 30, 128))).toBe(true);
    expect(isRed(await pixel(large, 225, 128))).toBe(true);
  });

  it('turns the PNG with transparency into three WebPs that keep the transparency', async () => {
    const encoded = await encodePicture(fixture('transparent.png'));
    await expectThreeWebps(encoded);
    expect((await sharp(encoded.large).metadata()).hasAlpha).toBe(true);
    expect((await pixel(encoded.large, 0, 0))[3]).toBe(0);
    const centre = await pixel(encoded.large, 128, 128);
    expect(centre[3]).toBe(255);
    expect(centre[1]! > 120 && centre[0]! < 60).toBe(true); // the green disc
  });

  it('uses the first frame of an animated GIF', async () => {
    const gif = fixture('animated.gif');
    expect((await sharp(gif).metadata()).pages).toBe(2);
    const encoded = await encodePicture(gif);
    await expectThreeWebps(encoded);
    for (const size of SIZE_NAMES) {
      const mid = SIZES[size] / 2;
      const [r, g, b] = await pixel(encoded[size], mid, mid);
      // Frame 1 is green (0,200,0); frame 2 magenta.
      expect(r! < 40 && g! > 160 && b! < 40).toBe(true);
    }
  });

  it('rejects an empty buffer with 400', async () => {
    await expectRefusal(encodePicture(Buffer.alloc(0)), 400, 'The picture file is empty');
  });

  it('rejects more than 8 MB with 413 before decoding', async () => {
    await expectRefusal(encodePicture(Buffer.alloc(MAX_UPLOAD_BYTES + 1)), 413, 'The picture is larger than 8 MB');
  });

  it('accepts exactly 8 MB as far as size goes (then judges the content)', async () => {
    expect(MAX_UPLOAD_BYTES).toBe(8 * 1024 * 1024);
    await expectRefusal(encodePicture(Buffer.alloc(MAX_UPLOAD_BYTES)), 400, NOT_AN_IMAGE);
  });

  it('rejects a truncated JPEG with 400 damaged or truncated', async () => {
    await expectRefusal(encodePicture(fixture('truncated.jpg')), 400, DAMAGED);
  });

  it('rejects a text file named picture.png with 400 not an image', async () => {
    await expectRefusal(encodePicture(fixture('picture.png')), 400, NOT_AN_IMAGE);
  });

  it('rejects a decompression bomb (10000x10000 PNG, small on disk) with 400 too many pixels', async () => {
    const bomb = await sharp({ create: { width: 10_000, height: 10_000, channels: 3, background: '#336699' } })
      .png({ compressionLevel: 9 })
      .toBuffer();
    expect(bomb.length).toBeLessThan(MAX_UPLOAD_BYTES);
    const started = Date.now();
    await expectRefusal(encodePicture(bomb), 400, TOO_MANY_PIXELS);
    expect(Date.now() - started).toBeLessThan(5_000); // refused from the header, not after decoding
  });
});

describe('setPicture / removePicture', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer();
  });
  afterAll(async () => t.close());

  const deps = () => {
    const { store, pictures, now } = t.app.deps;
    return { store, pictures, now };
  };

  /** Every stored picture (temporary files included) of the user: "<size>/<name>". */
  const filesOf = (userId: number): Promise<string[]> => storedPictures(t, userId);

  /** Everything in the picture store, for "nothing else was written" checks. */
  const allFiles = (): Promise<string[]> => storedPictures(t);

  const expected = (userId: number, ts: number) => SIZE_NAMES.map((size) => `${size}/${userId}-${ts}.webp`).sort();

  async function pfpTimestamp(userId: number): Promise<number | null | undefined> {
    return (await t.store.users.getUser(userId))?.pfpTimestamp;
  }

  it('writes exactly the three files of the new timestamp, which is the current time', async () => {
    const user = await makeUser(t);
    const ts = await setPicture(deps(), user.id, fixture('photo.jpg'));
    expect(ts).toBe(t.clock.now());
    expect(await pfpTimestamp(user.id)).toBe(ts);
    expect(await filesOf(user.id)).toEqual(expected(user.id, ts));
    for (const size of SIZE_NAMES) {
      const meta = await sharp(await storedPicture(t, size, user.id, ts)).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['webp', SIZES[size], SIZES[size]]);
    }
  });

  it('replaces the picture: new files written, old ones deleted', async () => {
    const user = await makeUser(t);
    const first = await setPicture(deps(), user.id, fixture('photo.jpg'));
    t.clock.advance(5_000);
    const second = await setPicture(deps(), user.id, fixture('transparent.png'));
    expect(second).toBe(t.clock.now());
    expect(second).toBeGreaterThan(first);
    expect(await pfpTimestamp(user.id)).toBe(second);
    expect(await filesOf(user.id)).toEqual(expected(user.id, second));
  });

  it('makes the new pfpTimestamp strictly greater even when the clock has not moved', async () => {
    const user = await makeUser(t);
    const first = await setPicture(deps(), user.id, fixture('photo.jpg'));
    const second = await setPicture(deps(), user.id, fixture('photo.jpg'));
    const third = await setPicture(deps(), user.id, fixture('photo.jpg'));
    expect(second).toBeGreaterThan(first);
    expect(third).toBeGreaterThan(second);
    expect(await pfpTimestamp(user.id)).toBe(third);
    expect(await filesOf(user.id)).toEqual(expected(user.id, third));
  });

  it('makes the new pfpTimestamp strictly greater even when the clock went back', async () => {
    const user = await makeUser(t);
    const first = await setPicture(deps(), user.id, fixture('photo.jpg'));
    t.clock.advance(-60_000);
    const second = await setPicture(deps(), user.id, fixture('photo.jpg'));
    t.clock.advance(60_000);
    expect(second).toBeGreaterThan(first);
    expect(await filesOf(user.id)).toEqual(expected(user.id, second));
  });

  for (const [name, status, message] of [
    ['picture.png', 400, NOT_AN_IMAGE],
    ['truncated.jpg', 400, DAMAGED],
  ] as const) {
    it(`a rejected upload (${name}) leaves the old picture, its files and nothing else`, async () => {
      const user = await makeUser(t);
      const ts = await setPicture(deps(), user.id, fixture('photo.jpg'));
      const before = Object.fromEntries(await Promise.all(SIZE_NAMES.map(async (s) => [s, await storedPicture(t, s, user.id, ts)] as const)));
      const everything = await allFiles();
      t.clock.advance(1_000);
      await expectRefusal(setPicture(deps(), user.id, fixture(name)), status, message);
      expect(await pfpTimestamp(user.id)).toBe(ts);
      expect(await filesOf(user.id)).toEqual(expected(user.id, ts));
      for (const s of SIZE_NAMES) expect((await storedPicture(t, s, user.id, ts))!.equals(before[s]!)).toBe(true);
      expect(await allFiles()).toEqual(everything);
      expect((await allFiles()).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    });
  }

  it('a rejected upload by a user without a picture writes nothing and sets nothing', async () => {
    const user = await makeUser(t);
    await expectRefusal(setPicture(deps(), user.id, Buffer.alloc(MAX_UPLOAD_BYTES + 1)), 413, 'The picture is larger than 8 MB');
    expect(await pfpTimestamp(user.id)).toBeNull();
    expect(await filesOf(user.id)).toEqual([]);
  });

  it('rejects an unknown user with 404 and writes no files', async () => {
    const everything = await allFiles();
    await expectRefusal(setPicture(deps(), 987654, fixture('photo.jpg')), 404, 'User 987654 not found');
    expect(await allFiles()).toEqual(everything);
  });

  it('removePicture deletes the files and unsets pfpTimestamp (users/info no longer shows it)', async () => {
    const user = await makeUser(t);
    const ts = await setPicture(deps(), user.id, fixture('photo.jpg'));
    const shown = await fetch(`${t.baseUrl}/api/users/info?id=${user.id}`);
    expect(((await shown.json()) as { user: { pfpTimestamp?: number } }).user.pfpTimestamp).toBe(ts);
    // Served once, so this instance's cache holds it: the removal must still make it 404.
    const served = await fetch(`${t.baseUrl}/pfp/large/${user.id}-${ts}.webp`);
    expect(served.status).toBe(200);
    await served.arrayBuffer();

    await removePicture(deps(), user.id);
    expect(await pfpTimestamp(user.id)).toBeNull();
    expect(await filesOf(user.id)).toEqual([]);
    const res = await fetch(`${t.baseUrl}/api/users/info?id=${user.id}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      message: 'yes',
      user: publicUser(user),
    });
    // The old address is gone; the default picture answers at <id>.webp.
    const old = await fetch(`${t.baseUrl}/pfp/large/${user.id}-${ts}.webp`);
    expect(old.status).toBe(404);
    await old.arrayBuffer();
    const fallback = await fetch(`${t.baseUrl}/pfp/large/${user.id}.webp`);
    expect(fallback.status).toBe(200);
    await fallback.arrayBuffer();
  });

  it('removePicture of a user without a picture is a no-op', async () => {
    const user = await makeUser(t);
    await removePicture(deps(), user.id);
    expect(await pfpTimestamp(user.id)).toBeNull();
    expect(await filesOf(user.id)).toEqual([]);
  });

  it('removePicture of an unknown user is 404', async () => {
    await expectRefusal(removePicture(deps(), 987654), 404, 'User 987654 not found');
  });

  it('a picture set after removal (clock moved on) gets a new timestamp and address', async () => {
    const user = await makeUser(t);
    const first = await setPicture(deps(), user.id, fixture('photo.jpg'));
    await removePicture(deps(), user.id);
    t.clock.advance(1);
    const second = await setPicture(deps(), user.id, fixture('transparent.png'));
    expect(second).toBeGreaterThan(first);
    expect(await filesOf(user.id)).toEqual(expected(user.id, second));
  });

  // The clock does not move here: only the store's pfpHighWater, which survives the removal, keeps
  // the new timestamp above the removed one. Reusing it would make an address served `immutable`
  // name a different image.
  it('a picture set after removal with a frozen clock does not reuse the removed timestamp', async () => {
    const user = await makeUser(t);
    const first = await setPicture(deps(), user.id, fixture('photo.jpg'));
    await removePicture(deps(), user.id);
    const second = await setPicture(deps(), user.id, fixture('transparent.png'));
    expect(second).toBeGreaterThan(first);
  });

  it('8 concurrent setPicture calls: each resolves or is 409; the winner\'s three files and nothing else remain', async () => {
    const user = await makeUser(t);
    const inputs = [fixture('photo.jpg'), fixture('transparent.png')];
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => setPicture(deps(), user.id, inputs[i % 2]!)),
    );
    const won: number[] = [];
    for (const r of results) {
      if (r.status === 'fulfilled') won.push(r.value);
      else {
        expect(r.reason).toBeInstanceOf(DomainError);
        expect(httpErrorOf(r.reason)?.status).toBe(409);
      }
    }
    expect(won.length).toBeGreaterThanOrEqual(1);
    expect(new Set(won).size).toBe(won.length); // every commit got its own timestamp
    const final = await pfpTimestamp(user.id);
    expect(final).toBe(Math.max(...won));
    expect(await filesOf(user.id)).toEqual(expected(user.id, final!));
    expect((await allFiles()).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('concurrent setPicture and removePicture leave a consistent state', async () => {
    const user = await makeUser(t);
    await setPicture(deps(), user.id, fixture('photo.jpg'));
    await Promise.allSettled([
      setPicture(deps(), user.id, fixture('photo.jpg')),
      removePicture(deps(), user.id),
      setPicture(deps(), user.id, fixture('transparent.png')),
      removePicture(deps(), user.id),
    ]);
    const final = await pfpTimestamp(user.id);
    expect(await filesOf(user.id)).toEqual(final === null || final === undefined ? [] : expected(user.id, final));
  });
});

describe('sweepOrphanPictures (at start, after a crash)', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer();
  });
  afterAll(async () => t.close());
  const hour = 3_600_000;

  it.runIf(TEST_DATABASE === 'sqlite')('SQLite: deletes old files no pfpTimestamp points at and stray temporaries; keeps current, young and foreign files', async () => {
    const deps = { store: t.store, pictures: t.app.deps.pictures, now: t.clock.now };
    const files = t.app.deps.pictures as PictureFiles;
    const user = await makeUser(t);
    const ts = await setPicture(deps, user.id, fixture('photo.jpg'));
    const dir = t.config.picturesDir;
    const put = (rel: string, ageMs: number) => {
      fs.writeFileSync(path.join(dir, rel), 'x');
      const when = new Date(t.clock.now() - ageMs);
      fs.utimesSync(path.join(dir, rel), when, when);
    };
    // A crash after writing files but before committing them, and one before deleting old ones.
    for (const size of SIZE_NAMES) put(`${size}/${user.id}-${ts + 5}.webp`, hour);
    put(`large/${user.id}-${ts - 5}.webp`, hour);
    put(`medium/.${user.id}-${ts + 9}.0123456789ab.tmp`, hour);
    put('small/424242-1.webp', hour); // a user that does not exist
    put(`large/${user.id}-${ts + 7}.webp`, 1_000); // young: maybe another instance's change in flight
    put('large/README.txt', hour); // not ours
    for (const size of SIZE_NAMES) fs.utimesSync(files.path(size, user.id, ts), new Date(t.clock.now() - hour), new Date(t.clock.now() - hour));
    expect(await sweepOrphanPictures(deps, 600_000)).toBe(6);
    const left = (fs.readdirSync(dir, { recursive: true }) as string[]).filter((p) => fs.statSync(path.join(dir, p)).isFile()).sort();
    expect(left).toEqual([...SIZE_NAMES.map((s) => `${s}/${user.id}-${ts}.webp`), `large/${user.id}-${ts + 7}.webp`, 'large/README.txt'].sort());
    expect(await sweepOrphanPictures(deps, 0)).toBe(1); // with no minimum age the young orphan goes too
  });

  it.runIf(TEST_DATABASE === 'postgres')('PostgreSQL: deletes old rows no pfpTimestamp points at; keeps current and young ones', async () => {
    const deps = { store: t.store, pictures: t.app.deps.pictures, now: t.clock.now };
    const user = await makeUser(t);
    const ts = await setPicture(deps, user.id, fixture('photo.jpg'));
    const bytes = { large: Buffer.from('l'), medium: Buffer.from('m'), small: Buffer.from('s') };
    // A crash after writing rows but before committing them, and one before deleting old ones.
    expect(await t.store.pictures.insertPictures(user.id, ts + 5, bytes, t.clock.now() - hour)).toBe(true);
    expect(await t.store.pictures.insertPictures(user.id, ts - 5, bytes, t.clock.now() - hour)).toBe(true);
    // Young: maybe another instance's change in flight.
    expect(await t.store.pictures.insertPictures(user.id, ts + 7, bytes, t.clock.now() - 1_000)).toBe(true);
    expect(await sweepOrphanPictures(deps, 600_000)).toBe(6);
    const current = SIZE_NAMES.map((s) => `${s}/${user.id}-${ts}.webp`);
    expect(await storedPictures(t, user.id)).toEqual([...current, ...SIZE_NAMES.map((s) => `${s}/${user.id}-${ts + 7}.webp`)].sort());
    expect(await sweepOrphanPictures(deps, 0)).toBe(3);
    expect(await storedPictures(t, user.id)).toEqual(current.sort());
  });
});

describe.runIf(TEST_DATABASE === 'postgres')('importPictureFiles (PostgreSQL start, `admin picture import`)', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer();
  });
  afterAll(async () => t.close());

  it('moves the files of current pfpTimestamps from a PICTURES_DIR into the database, once; counts users without files', async () => {
    const dir = tempDir('idp-old-pictures-');
    try {
      const old = new PictureFiles(dir);
      const images = await encodePicture(fixture('photo.jpg'));
      const withFiles = await makeUser(t);
      const withoutFiles = await makeUser(t);
      const ts = t.clock.now();
      expect(await old.writeAll(withFiles.id, ts, images)).toBe(true);
      expect(await old.writeAll(withFiles.id, ts - 1, images)).toBe(true); // not current: stays behind
      expect(await t.store.users.swapPfpTimestamp(withFiles.id, null, ts)).toBe(true);
      expect(await t.store.users.swapPfpTimestamp(withoutFiles.id, null, ts)).toBe(true);
      const deps = { store: t.store, pictures: t.app.deps.pictures };
      expect(await importPictureFiles(deps, dir)).toEqual({ imported: 1, missing: 1 });
      expect(await storedPictures(t, withFiles.id)).toEqual(SIZE_NAMES.map((s) => `${s}/${withFiles.id}-${ts}.webp`).sort());
      const res = await fetch(`${t.baseUrl}/pfp/medium/${withFiles.id}-${ts}.webp`);
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(images.medium)).toBe(true);
      expect(await importPictureFiles(deps, dir)).toEqual({ imported: 0, missing: 1 });
      // The files are read, never deleted.
      expect(fs.existsSync(old.path('large', withFiles.id, ts))).toBe(true);

      // `admin picture import` does the same.
      const later = await makeUser(t);
      expect(await old.writeAll(later.id, ts, images)).toBe(true);
      expect(await t.store.users.swapPfpTimestamp(later.id, null, ts)).toBe(true);
      let stdout = '';
      const io = { env: { DATABASE_URL: t.config.databaseUrl, PICTURES_DIR: dir, LOG_LEVEL: 'silent' }, stdout: (s: string) => (stdout += s), stderr: () => {} };
      expect(await runCli(['picture', 'import'], io)).toBe(0);
      expect(stdout).toBe('{"imported":1,"missing":1}\n');
      expect(await storedPictures(t, later.id)).toEqual(SIZE_NAMES.map((s) => `${s}/${later.id}-${ts}.webp`).sort());
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
