/**
 * The Store on the database this run tests: SQLite (SqliteStore) in `vitest run`, PostgreSQL
 * (KnexStore) in `npm run test:pg`. Every method of the interface is called through a recorder, and
 * the last test fails when one of STORE_METHODS (src/store/methods.ts) was not: a method that only
 * the other database's pass would exercise cannot hide here.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KnexStore } from '../src/store/knex-store.js';
import { STORE_METHODS } from '../src/store/methods.js';
import { openStoreAt } from '../src/store/open.js';
import { SqliteStore } from '../src/store/sqlite-store.js';
import { UniqueViolation, type CodeRecord, type Store, type TokenRecord, type UserRecord } from '../src/store/types.js';
import { freshDatabase, tempDir, TEST_DATABASE, type TestDatabase } from './helpers.js';

/** The store, with the name of every method called through it added to `calls`. */
function recording(target: Store, calls: Set<string>): Store {
  return new Proxy(target, {
    get(obj, prop) {
      const value: unknown = Reflect.get(obj, prop, obj);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.add(String(prop));
        return (value as (...a: unknown[]) => unknown).apply(obj, args);
      };
    },
  });
}

const NOW = 1_800_000_000_000;
const hash = (c: string): string => c.repeat(64);

describe(`Store (${TEST_DATABASE})`, () => {
  const calls = new Set<string>();
  let dir: string;
  let db: TestDatabase;
  let opened: KnexStore;
  let store: Store;
  let closed = false;
  let alice: UserRecord;
  let bob: UserRecord;

  beforeAll(async () => {
    dir = tempDir('idp-store-');
    db = await freshDatabase(dir);
    opened = openStoreAt(db.url);
    store = recording(opened, calls);
    await store.migrate();
  });
  afterAll(async () => {
    if (!closed) await opened?.close();
    await db?.drop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is the SQLite store on a SQLite file and the knex store on PostgreSQL', () => {
    if (TEST_DATABASE === 'sqlite') expect(opened).toBeInstanceOf(SqliteStore);
    else expect(opened).not.toBeInstanceOf(SqliteStore);
    expect(opened).toBeInstanceOf(KnexStore);
  });

  it('opens an in-memory SQLite database as the knex store (no second connection can see it)', async () => {
    const memory = openStoreAt(':memory:');
    try {
      expect(memory).not.toBeInstanceOf(SqliteStore);
      await memory.migrate();
      expect(await memory.countUsers()).toBe(0);
    } finally {
      await memory.close();
    }
  });

  it('migrates a migrated database again without change and answers a ping', async () => {
    await store.migrate();
    await expect(store.ping()).resolves.toBeUndefined();
  });

  it('creates users with the documented defaults and counts them', async () => {
    expect(await store.countUsers()).toBe(0);
    alice = await store.createUser({ name: 'Alice_1', email: 'alice@example.com', passwordHash: 'hash-a' }, NOW);
    expect(alice).toEqual({
      id: alice.id,
      name: 'Alice_1',
      email: 'alice@example.com',
      passwordHash: 'hash-a',
      bio: '',
      flairs: ['none'],
      equippedFlair: 'none',
      playMinutes: 0,
      lastHeartbeat: 0,
      modLevel: 0,
      pfpTimestamp: null,
      pfpHighWater: 0,
      createdAt: NOW,
    });
    bob = await store.createUser({ name: 'bob', email: 'bob@example.com', passwordHash: 'hash-b' }, NOW + 1);
    expect(bob.id).toBeGreaterThan(alice.id);
    expect(await store.countUsers()).toBe(2);
  });

  it('refuses a name taken in another case and a taken email, naming the field', async () => {
    const name = store.createUser({ name: 'ALICE_1', email: 'other@example.com', passwordHash: 'x' }, NOW);
    await expect(name).rejects.toBeInstanceOf(UniqueViolation);
    await expect(name).rejects.toMatchObject({ field: 'name' });
    await expect(store.createUser({ name: 'carol', email: 'alice@example.com', passwordHash: 'x' }, NOW)).rejects.toMatchObject({ field: 'email' });
    expect(await store.countUsers()).toBe(2);
  });

  it('reads a user by id, name (any case) and email; ids and keys that name no row find nothing', async () => {
    expect(await store.getUser(alice.id)).toEqual(alice);
    expect(await store.getUserByName('aLiCe_1')).toEqual(alice);
    expect(await store.getUserByEmail('ALICE@example.com')).toEqual(alice);
    expect(await store.getUser(0)).toBeUndefined();
    expect(await store.getUser(2 ** 31)).toBeUndefined();
    expect(await store.getUser(1.5)).toBeUndefined();
    expect(await store.getUserByName('alice\u0000')).toBeUndefined();
    expect(await store.getUserByEmail('nobody@example.com')).toBeUndefined();
  });

  it('reads exactly the public fields of a user, and nothing for an unknown id', async () => {
    expect(await store.getPublicUser(alice.id)).toEqual({
      id: alice.id,
      name: 'Alice_1',
      bio: '',
      flairs: ['none'],
      equippedFlair: 'none',
      playMinutes: 0,
      lastHeartbeat: 0,
      modLevel: 0,
      pfpTimestamp: null,
    });
    expect(await store.getPublicUser(bob.id + 100)).toBeUndefined();
    expect(await store.getPublicUser(-1)).toBeUndefined();
  });

  it('updates only the patched fields, and the very next read sees the change', async () => {
    const updated = await store.updateUser(alice.id, { bio: 'hi', flairs: ['none', 'gold'], equippedFlair: 'gold', modLevel: 1 });
    expect(updated).toEqual({ ...alice, bio: 'hi', flairs: ['none', 'gold'], equippedFlair: 'gold', modLevel: 1 });
    expect(await store.getPublicUser(alice.id)).toMatchObject({ bio: 'hi', equippedFlair: 'gold', modLevel: 1 });
    expect(await store.updateUser(alice.id, {})).toEqual(updated);
    expect(await store.updateUser(bob.id + 100, { bio: 'x' })).toBeUndefined();
    alice = updated!;
  });

  it('records a heartbeat only while lastHeartbeat is what the caller read', async () => {
    const beat = await store.recordHeartbeat(alice.id, 0, NOW, 3);
    expect(beat).toMatchObject({ lastHeartbeat: NOW, playMinutes: 3 });
    expect(await store.recordHeartbeat(alice.id, 0, NOW + 1, 3)).toBeUndefined();
    expect(await store.getUser(alice.id)).toMatchObject({ lastHeartbeat: NOW, playMinutes: 3 });
    expect(await store.recordHeartbeat(0, 0, NOW, 1)).toBeUndefined();
  });

  it('swaps pfpTimestamp only from the expected value, and the high-water mark survives a removal', async () => {
    expect(await store.swapPfpTimestamp(bob.id, null, 100)).toBe(true);
    expect(await store.swapPfpTimestamp(bob.id, null, 200)).toBe(false);
    expect(await store.getUser(bob.id)).toMatchObject({ pfpTimestamp: 100, pfpHighWater: 100 });
    expect(await store.swapPfpTimestamp(bob.id, 100, null)).toBe(true);
    expect(await store.getUser(bob.id)).toMatchObject({ pfpTimestamp: null, pfpHighWater: 100 });
    expect(await store.swapPfpTimestamp(0, null, 1)).toBe(false);
  });

  it('stores apps, lists a user\'s oldest first, and changes a secret', async () => {
    await store.createApp({ clientId: 'app-b', secretHash: hash('1'), ownerId: alice.id, name: 'B', redirectUris: ['https://b.example/cb'], createdAt: NOW + 5 });
    await store.createApp({ clientId: 'app-a', secretHash: hash('2'), ownerId: alice.id, name: 'A', redirectUris: ['https://a.example/cb', 'http://localhost:1/cb'], createdAt: NOW });
    expect(await store.getApp('app-a')).toEqual({
      clientId: 'app-a',
      secretHash: hash('2'),
      ownerId: alice.id,
      name: 'A',
      redirectUris: ['https://a.example/cb', 'http://localhost:1/cb'],
      createdAt: NOW,
    });
    expect((await store.listAppsByOwner(alice.id)).map((a) => a.clientId)).toEqual(['app-a', 'app-b']);
    expect(await store.listAppsByOwner(bob.id)).toEqual([]);
    expect(await store.setAppSecret('app-a', hash('3'))).toBe(true);
    expect((await store.getApp('app-a'))?.secretHash).toBe(hash('3'));
    expect(await store.setAppSecret('no-such-app', hash('3'))).toBe(false);
    expect(await store.getApp('no-such-app')).toBeUndefined();
    expect(await store.getApp('app-a\u0000')).toBeUndefined();
  });

  const code = (c: string, over: Partial<CodeRecord> = {}): CodeRecord => ({
    codeHash: hash(c),
    clientId: 'app-a',
    userId: alice.id,
    scopes: ['userinfo', 'email'],
    redirectUri: 'https://a.example/cb',
    codeChallenge: null,
    expiresAt: NOW + 300_000,
    usedAt: null,
    createdAt: NOW,
    ...over,
  });
  const token = (c: string, codeHash: string | null): TokenRecord => ({
    tokenHash: hash(c),
    clientId: 'app-a',
    userId: alice.id,
    scopes: ['userinfo', 'email'],
    codeHash,
    expiresAt: NOW + 600_000,
    revokedAt: null,
    createdAt: NOW,
  });

  it('redeems a code once, storing its token; a used or expired code is not redeemed', async () => {
    await store.createCode(code('c'));
    await store.createCode(code('d', { expiresAt: NOW - 1, codeChallenge: 'x'.repeat(43), redirectUri: null, scopes: [] }));
    expect(await store.getCode(hash('c'))).toEqual(code('c'));
    expect(await store.getCode(hash('d'))).toEqual(code('d', { expiresAt: NOW - 1, codeChallenge: 'x'.repeat(43), redirectUri: null, scopes: [] }));
    expect(await store.getCode(hash('e'))).toBeUndefined();

    expect(await store.redeemCode(hash('c'), NOW + 1, token('t', hash('c')))).toBe(true);
    expect(await store.getCode(hash('c'))).toMatchObject({ usedAt: NOW + 1 });
    expect(await store.redeemCode(hash('c'), NOW + 2, token('u', hash('c')))).toBe(false);
    expect(await store.getTokenWithUser(hash('u'))).toBeUndefined();
    expect(await store.redeemCode(hash('d'), NOW, token('v', hash('d')))).toBe(false);
  });

  it('reads a token with its user, and revokes every token of a code once', async () => {
    expect(await store.getTokenWithUser(hash('t'))).toEqual({
      token: { clientId: 'app-a', userId: alice.id, scopes: ['userinfo', 'email'], expiresAt: NOW + 600_000, revokedAt: null },
      user: { id: alice.id, name: 'Alice_1', email: 'alice@example.com', pfpTimestamp: null },
    });
    expect(await store.revokeTokensOfCode(hash('c'), NOW + 9)).toBe(1);
    expect(await store.revokeTokensOfCode(hash('c'), NOW + 10)).toBe(0);
    expect((await store.getTokenWithUser(hash('t')))?.token.revokedAt).toBe(NOW + 9);
  });

  it('deletes an app with its codes and tokens', async () => {
    expect(await store.deleteApp('app-a')).toBe(true);
    expect(await store.getApp('app-a')).toBeUndefined();
    expect(await store.getCode(hash('c'))).toBeUndefined();
    expect(await store.getTokenWithUser(hash('t'))).toBeUndefined();
    expect(await store.deleteApp('app-a')).toBe(false);
    expect((await store.listAppsByOwner(alice.id)).map((a) => a.clientId)).toEqual(['app-b']);
  });

  it('stores games and reads them with their author, newest first', async () => {
    const first = await store.createGame({ authorId: alice.id, title: 'First', url: 'https://games.example/1', createdAt: NOW });
    const second = await store.createGame({ authorId: bob.id, title: 'Second', url: 'https://games.example/2', createdAt: NOW + 1 });
    expect(first).toEqual({ id: first.id, authorId: alice.id, title: 'First', url: 'https://games.example/1', createdAt: NOW });
    expect(await store.getGame(second.id)).toEqual({ ...second, authorName: 'bob' });
    expect((await store.listGames()).map((g) => [g.title, g.authorName])).toEqual([
      ['Second', 'bob'],
      ['First', 'Alice_1'],
    ]);
    expect(await store.getGame(second.id + 100)).toBeUndefined();
    expect(await store.getGame(2 ** 40)).toBeUndefined();
  });

  it('stores, replaces and expires sessions', async () => {
    await store.setSession(hash('1'), '{"a":1}', NOW + 1000, null);
    await store.setSession(hash('1'), '{"a":2}', NOW + 1000, alice.id);
    expect(await store.getSession(hash('1'), NOW)).toBe('{"a":2}');
    expect(await store.getSession(hash('1'), NOW + 1000)).toBeUndefined();
    expect(await store.getSession(hash('9'), NOW)).toBeUndefined();
    await store.deleteSession(hash('1'));
    expect(await store.getSession(hash('1'), NOW)).toBeUndefined();

    await store.setSession(hash('2'), '{}', NOW + 10, alice.id);
    await store.setSession(hash('3'), '{}', NOW + 1000, null);
    expect(await store.deleteExpiredSessions(NOW + 10)).toBe(1);
    expect(await store.getSession(hash('3'), NOW)).toBe('{}');
  });

  it("ends a user's sessions except the one named, and no one else's", async () => {
    for (const c of ['4', '5', '6']) await store.setSession(hash(c), '{}', NOW + 1000, alice.id);
    await store.setSession(hash('7'), '{}', NOW + 1000, bob.id);
    expect(await store.deleteUserSessions(alice.id, hash('4'))).toBe(2);
    expect(await store.getSession(hash('4'), NOW)).toBe('{}');
    expect(await store.getSession(hash('5'), NOW)).toBeUndefined();
    expect(await store.deleteUserSessions(alice.id)).toBe(1);
    expect(await store.getSession(hash('4'), NOW)).toBeUndefined();
    expect(await store.getSession(hash('7'), NOW)).toBe('{}');
  });

  it('counts rate-limit points in the database, per key', async () => {
    const limiter = store.rateLimiter({ keyPrefix: 'store_test', points: 2, seconds: 60 });
    await limiter.consume('k');
    await limiter.consume('k');
    await expect(limiter.consume('k')).rejects.toMatchObject({ remainingPoints: 0, consumedPoints: 3 });
    await expect(limiter.consume('other')).resolves.toMatchObject({ remainingPoints: 1 });
    // A second limiter on the same rule (another instance) sees the same count.
    const again = store.rateLimiter({ keyPrefix: 'store_test', points: 2, seconds: 60 });
    await expect(again.consume('k')).rejects.toMatchObject({ remainingPoints: 0 });
  });

  it('closes: a closed store answers nothing', async () => {
    await store.close();
    closed = true;
    await expect(store.ping()).rejects.toThrow();
  });

  it('called every Store method (src/store/methods.ts) on this database', () => {
    expect(STORE_METHODS.filter((m) => !calls.has(m))).toEqual([]);
    expect(STORE_METHODS.every((m) => typeof opened[m] === 'function')).toBe(true);
  });
});
