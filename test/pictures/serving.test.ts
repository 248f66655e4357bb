/** GET /pfp/<size>/<file>.webp: current pictures, default pictures, caching, CORS and 404s. */
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIZES, SIZE_NAMES } from '../../src/pictures/images.js';
import { PictureFiles, removePicture, setPicture } from '../../src/pictures/pictures.js';
import type { UserRecord } from '../../src/domain/users.js';
import { fixturesDir, makeUser, startServer, storedPicture, TEST_DATABASE, type TestServer } from '../helpers.js';

const IMMUTABLE = 'public, max-age=31536000, immutable';
const SHORT = 'public, max-age=60';
const NOT_FOUND = { message: 'Profile picture not found' };

let t: TestServer;
let photo: Buffer;

beforeAll(async () => {
  t = await startServer();
  photo = fs.readFileSync(path.join(fixturesDir, 'photo.jpg'));
});
afterAll(async () => t.close());

function deps() {
  const { store, pictures, now } = t.app.deps;
  return { store, pictures, now };
}

/**
 * fetch() adds `Cache-Control: no-cache` to a request that carries If-None-Match unless one is
 * given (Fetch standard, cache mode), and a server must not answer 304 to no-cache; the
 * conditional requests below send `max-age=0`, as a browser revalidating does.
 */
function get(urlPath: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Response> {
  return fetch(`${t.baseUrl}${urlPath}`, { method, headers });
}

async function userWithPicture(): Promise<{ user: UserRecord; ts: number }> {
  const user = await makeUser(t);
  const ts = await setPicture(deps(), user.id, photo);
  return { user, ts };
}

async function expectNotFound(res: Response): Promise<void> {
  expect(res.status).toBe(404);
  expect(res.headers.get('content-type')).toMatch(/^application\/json\b/);
  expect(await res.json()).toEqual(NOT_FOUND);
}

describe('timestamped picture <id>-<pfpTimestamp>.webp', () => {
  let user: UserRecord;
  let ts: number;
  beforeAll(async () => {
    ({ user, ts } = await userWithPicture());
  });

  for (const size of SIZE_NAMES) {
    it(`serves ${size} as a ${SIZES[size]}x${SIZES[size]} WebP, cached immutable, any origin`, async () => {
      const res = await get(`/pfp/${size}/${user.id}-${ts}.webp`, { Origin: 'https://game.example' });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/webp');
      expect(res.headers.get('cache-control')).toBe(IMMUTABLE);
      expect(res.headers.get('etag')).toMatch(/^(W\/)?"[^"]+"$/);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      // `*` does not vary by Origin: no Vary that would split a CDN's cache per embedding site.
      expect(res.headers.get('vary')).toBeNull();
      const body = Buffer.from(await res.arrayBuffer());
      expect(res.headers.get('content-length')).toBe(String(body.length));
      const meta = await sharp(body).metadata();
      expect(meta.format).toBe('webp');
      expect(meta.width).toBe(SIZES[size]);
      expect(meta.height).toBe(SIZES[size]);
      // The bytes served are the bytes stored.
      expect(body.equals((await storedPicture(t, size, user.id, ts))!)).toBe(true);
    });
  }

  it('answers 304 with no body to If-None-Match carrying its ETag', async () => {
    const first = await get(`/pfp/large/${user.id}-${ts}.webp`);
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    await first.arrayBuffer();
    const res = await get(`/pfp/large/${user.id}-${ts}.webp`, { 'If-None-Match': etag, 'Cache-Control': 'max-age=0', Origin: 'https://game.example' });
    expect(res.status).toBe(304);
    expect(res.headers.get('etag')).toBe(etag);
    expect(res.headers.get('cache-control')).toBe(IMMUTABLE);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect((await res.arrayBuffer()).byteLength).toBe(0);
  });

  it('gives each size its own ETag', async () => {
    const etags = new Set<string | null>();
    for (const size of SIZE_NAMES) {
      const res = await get(`/pfp/${size}/${user.id}-${ts}.webp`);
      await res.arrayBuffer();
      etags.add(res.headers.get('etag'));
    }
    expect(etags.size).toBe(3);
  });

  it('answers 200 (not 304) to If-None-Match with another ETag', async () => {
    const res = await get(`/pfp/large/${user.id}-${ts}.webp`, { 'If-None-Match': '"something-else"' });
    expect(res.status).toBe(200);
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(0);
  });

  it('answers HEAD with 200 and the headers, without a body', async () => {
    const full = await get(`/pfp/medium/${user.id}-${ts}.webp`);
    const length = (await full.arrayBuffer()).byteLength;
    const res = await get(`/pfp/medium/${user.id}-${ts}.webp`, { Origin: 'https://game.example' }, 'HEAD');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/webp');
    expect(res.headers.get('cache-control')).toBe(IMMUTABLE);
    expect(res.headers.get('etag')).toBe(full.headers.get('etag'));
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('content-length')).toBe(String(length));
    expect((await res.arrayBuffer()).byteLength).toBe(0);
  });
});

describe('default picture <id>.webp', () => {
  for (const size of SIZE_NAMES) {
    it(`serves ${size} of a user without a picture as a ${SIZES[size]}x${SIZES[size]} WebP, cached briefly`, async () => {
      const user = await makeUser(t);
      const res = await get(`/pfp/${size}/${user.id}.webp`, { Origin: 'https://game.example' });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/webp');
      expect(res.headers.get('cache-control')).toBe(SHORT);
      expect(res.headers.get('etag')).toMatch(/^(W\/)?"[^"]+"$/);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
      expect(meta.format).toBe('webp');
      expect(meta.width).toBe(SIZES[size]);
      expect(meta.height).toBe(SIZES[size]);
    });
  }

  it('answers 304 with no body to If-None-Match carrying its ETag', async () => {
    const user = await makeUser(t);
    const first = await get(`/pfp/small/${user.id}.webp`);
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    const etag = first.headers.get('etag')!;
    const res = await get(`/pfp/small/${user.id}.webp`, { 'If-None-Match': etag, 'Cache-Control': 'max-age=0' });
    expect(res.status).toBe(304);
    expect(res.headers.get('etag')).toBe(etag);
    expect(res.headers.get('cache-control')).toBe(SHORT);
    expect((await res.arrayBuffer()).byteLength).toBe(0);
  });

  it('is deterministic: two requests give identical bytes and ETags', async () => {
    const user = await makeUser(t);
    const a = await get(`/pfp/large/${user.id}.webp`);
    const b = await get(`/pfp/large/${user.id}.webp`);
    const bodyA = Buffer.from(await a.arrayBuffer());
    const bodyB = Buffer.from(await b.arrayBuffer());
    expect(bodyA.length).toBeGreaterThan(0);
    expect(bodyA.equals(bodyB)).toBe(true);
    expect(a.headers.get('etag')).toBe(b.headers.get('etag'));
  });

  it('is distinct per user: two users get different large pictures and ETags', async () => {
    const one = await makeUser(t);
    const two = await makeUser(t);
    const a = await get(`/pfp/large/${one.id}.webp`);
    const b = await get(`/pfp/large/${two.id}.webp`);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    const pixelsA = await sharp(Buffer.from(await a.arrayBuffer())).raw().toBuffer();
    const pixelsB = await sharp(Buffer.from(await b.arrayBuffer())).raw().toBuffer();
    expect(pixelsA.equals(pixelsB)).toBe(false);
    expect(a.headers.get('etag')).not.toBe(b.headers.get('etag'));
  });

  it('answers HEAD with 200 and the headers, without a body', async () => {
    const user = await makeUser(t);
    const res = await get(`/pfp/large/${user.id}.webp`, {}, 'HEAD');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/webp');
    expect(res.headers.get('cache-control')).toBe(SHORT);
    expect(res.headers.get('etag')).toMatch(/^(W\/)?"[^"]+"$/);
    expect((await res.arrayBuffer()).byteLength).toBe(0);
  });
});

describe('404 Profile picture not found', () => {
  it('for the old timestamp after the picture changed; the new one is served', async () => {
    const { user, ts } = await userWithPicture();
    t.clock.advance(1000);
    const next = await setPicture(deps(), user.id, photo);
    expect(next).toBeGreaterThan(ts);
    for (const size of SIZE_NAMES) {
      await expectNotFound(await get(`/pfp/${size}/${user.id}-${ts}.webp`));
      const res = await get(`/pfp/${size}/${user.id}-${next}.webp`);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
  });

  it('for <id>.webp of a user who has a picture', async () => {
    const { user } = await userWithPicture();
    for (const size of SIZE_NAMES) await expectNotFound(await get(`/pfp/${size}/${user.id}.webp`));
  });

  it('for <id>-<ts>.webp of a user who has no picture', async () => {
    const user = await makeUser(t);
    await expectNotFound(await get(`/pfp/large/${user.id}-${t.clock.now()}.webp`));
    await expectNotFound(await get(`/pfp/large/${user.id}-0.webp`));
  });

  it('for a timestamp near the current one', async () => {
    const { user, ts } = await userWithPicture();
    await expectNotFound(await get(`/pfp/large/${user.id}-${ts + 1}.webp`));
    await expectNotFound(await get(`/pfp/large/${user.id}-${ts - 1}.webp`));
  });

  it('for an unknown user', async () => {
    await expectNotFound(await get('/pfp/large/999999.webp'));
    await expectNotFound(await get('/pfp/large/999999-1733707565493.webp'));
  });

  it('never serves one user\'s picture under another user\'s id', async () => {
    const { ts } = await userWithPicture();
    const other = await makeUser(t);
    await expectNotFound(await get(`/pfp/large/${other.id}-${ts}.webp`));
  });

  const malformed = [
    '/pfp/huge/1.webp',
    '/pfp/LARGE/1.webp',
    '/pfp/large/1.png',
    '/pfp/large/1',
    '/pfp/large/1.webp.webp',
    '/pfp/large/1-abc.webp',
    '/pfp/large/1-.webp',
    '/pfp/large/-1.webp',
    '/pfp/large/0.webp',
    '/pfp/large/01.webp',
    '/pfp/large/1.5.webp',
    '/pfp/large/1e3.webp',
    '/pfp/large/99999999999999999.webp',
    '/pfp/large/.webp',
    '/pfp/large/..%2F..%2Fetc%2Fpasswd',
    '/pfp/large/..%2F..%2Fetc%2Fpasswd.webp',
    '/pfp/large/%2e%2e.webp',
    '/pfp/large/%2e%2e%2f1.webp',
    '/pfp/large/1%2F1.webp',
    '/pfp/..%2Flarge/1.webp',
  ];
  for (const p of malformed) {
    it(`for the malformed address ${p}`, async () => {
      const user = await makeUser(t); // makes sure user 1 exists
      expect(user.id).toBeGreaterThanOrEqual(1);
      await expectNotFound(await get(p));
    });
  }

  // An extra path segment matches no route at all; the router's 404 still speaks of pictures.
  for (const p of ['/pfp/large/a/1.webp', '/pfp/large/1.webp/extra', '/pfp/large/1/2/3.webp']) {
    it(`404 for the extra-segment address ${p}`, async () => {
      await makeUser(t);
      const res = await get(p);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json\b/);
      expect(await res.json()).toEqual({ message: 'Profile picture not found' });
    });
  }

  it('for an address whose picture is stored but is not the current one', async () => {
    const { user, ts } = await userWithPicture();
    // A stray picture in the store (as a crash between writing and committing would leave).
    const pictures = t.app.deps.pictures;
    if (pictures instanceof PictureFiles) {
      fs.copyFileSync(pictures.path('large', user.id, ts), pictures.path('large', user.id, ts + 5));
    } else {
      const bytes = (await storedPicture(t, 'large', user.id, ts))!;
      expect(await t.store.pictures.insertPictures(user.id, ts + 5, { large: bytes }, t.clock.now())).toBe(true);
    }
    expect(await storedPicture(t, 'large', user.id, ts + 5)).toBeDefined();
    await expectNotFound(await get(`/pfp/large/${user.id}-${ts + 5}.webp`));
  });

  it('carries no long-lived cache header on a 404', async () => {
    const res = await get('/pfp/large/999999-1.webp');
    expect(res.status).toBe(404);
    expect(res.headers.get('cache-control')).not.toBe(IMMUTABLE);
    await res.arrayBuffer();
  });
});

// Instances that share nothing but PostgreSQL (each its own, empty PICTURES_DIR): a picture set
// through one is served by the other, and once replaced or removed through one, the other's cached
// copy is never served again (the handler checks the current pfpTimestamp before its cache).
describe.runIf(TEST_DATABASE === 'postgres')('two instances on one PostgreSQL database, no shared disk', () => {
  let other: TestServer;
  beforeAll(async () => {
    other = await startServer({ DATABASE_URL: t.config.databaseUrl });
  });
  afterAll(async () => other?.close());

  it('serves a picture stored through the other instance, and 404 on both once it is replaced or removed', async () => {
    expect(other.config.picturesDir).not.toBe(t.config.picturesDir);
    const { user, ts } = await userWithPicture();
    const fromOther = await fetch(`${other.baseUrl}/pfp/large/${user.id}-${ts}.webp`);
    expect(fromOther.status).toBe(200);
    expect(fromOther.headers.get('cache-control')).toBe(IMMUTABLE);
    expect(Buffer.from(await fromOther.arrayBuffer()).equals((await storedPicture(t, 'large', user.id, ts))!)).toBe(true);

    t.clock.advance(1000);
    const next = await setPicture(deps(), user.id, photo);
    await expectNotFound(await fetch(`${other.baseUrl}/pfp/large/${user.id}-${ts}.webp`));
    const replaced = await fetch(`${other.baseUrl}/pfp/large/${user.id}-${next}.webp`);
    expect(replaced.status).toBe(200);
    await replaced.arrayBuffer();

    await removePicture(deps(), user.id);
    await expectNotFound(await fetch(`${other.baseUrl}/pfp/large/${user.id}-${next}.webp`));
    await expectNotFound(await get(`/pfp/large/${user.id}-${next}.webp`));
    // Neither instance wrote a file.
    for (const dir of [t.config.picturesDir, other.config.picturesDir]) expect(fs.existsSync(dir) ? fs.readdirSync(dir) : []).toEqual([]);
  });
});
