/**
 * The Store on the database this run tests: SQLite (SqliteStore) in `vitest run`, PostgreSQL
 * (KnexStore) in `npm run test:pg`. Every method of the interface is called through a recorder, and
 * the last test fails when one of EVERY_METHOD (below) was not: a method that only
 * the other database's pass would exercise cannot hide here.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGGREGATE_NAMES, KnexStore } from '../../src/store/knex-store.js';
import { openStoreAt } from '../../src/store/open.js';
import { PostgresStore } from '../../src/store/postgres-store.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { EXPIRED, REDEEMED, type CodeRecord, type TokenRecord } from '../../src/domain/apps.js';
import { DEAD, ROTATED, type RefreshTokenRecord, type Rotation } from '../../src/domain/refresh-tokens.js';
import type { DeviceAuthorizationRecord } from '../../src/domain/device-authorizations.js';
import type { EmailLinkRecord } from '../../src/domain/email-links.js';
import { UniqueViolation } from '../../src/domain/errors.js';
import type { NewModerationAction } from '../../src/domain/moderation.js';
import type { SessionMeta } from '../../src/domain/sessions.js';
import type { UpstreamRecord } from '../../src/domain/upstreams.js';
import { NO_PASSWORD, type UserRecord } from '../../src/domain/users.js';
import type { Aggregates, Store } from '../../src/store/types.js';
import { newUserRecord, publicUserRecord } from '../fixtures/users.js';
import { freshDatabase, tempDir, TEST_DATABASE, type TestDatabase } from '../helpers.js';
import { NOTHING, SECURITY_EVENTS, type Ended } from '../../src/domain/security-events.js';

/** What an event whose row ends nothing ended. */
const ENDED_NOTHING: Ended = { sessions: 0, tokens: 0, codes: 0, deviceCodes: 0, mailLinks: 0, passkeys: 0, upstreamIdentities: 0, authenticatorApp: false };

/** The store, with every method called through it added to `calls` as `aggregate.method` (the lifecycle's alone). */
function recording(target: Store, calls: Set<string>): Store {
  const record = <T extends object>(obj: T, prefix: string): T =>
    new Proxy(obj, {
      get(o, prop) {
        const value: unknown = Reflect.get(o, prop, o);
        if (typeof prop === 'string' && (AGGREGATE_NAMES as string[]).includes(prop) && prefix === '') return record(value as object, `${prop}.`);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          calls.add(prefix + String(prop));
          return (value as (...a: unknown[]) => unknown).apply(o, args);
        };
      },
    });
  return record(target, '');
}

/**
 * Every method of every aggregate, which the last test expects to have been called on this database:
 * the compiler fails while a method of the Store's interfaces is missing here, or one is here that
 * is not in them, so a method added to an aggregate must be added here, and then called above.
 */
const EVERY_METHOD: { [K in keyof Aggregates]: Record<keyof Aggregates[K], true> } = {
  users: { countUsers: true, createUser: true, getUser: true, getPublicUser: true, getPfpTimestamp: true, getUserByName: true, getUserByEmail: true, updateUser: true, setFirstPassword: true, recordHeartbeat: true, swapPfpTimestamp: true, deleteUser: true },
  apps: { createApp: true, getApp: true, listAppsByOwner: true, setAppSecret: true, updateApp: true, deleteApp: true, createCode: true, getCode: true, getAppAndCode: true, redeemCode: true, revokeTokensOfCode: true, getTokenWithUser: true, getAppAndToken: true, revokeToken: true },
  refreshTokens: { redeemCodeWithRefresh: true, getRefreshToken: true, rotateRefreshToken: true, revokeRefreshFamily: true },
  deviceAuthorizations: { createDeviceAuthorization: true, getDeviceAuthorizationByUserCode: true, decideDeviceAuthorization: true, pollDeviceAuthorization: true, redeemDeviceAuthorization: true },
  signingKeys: { listSigningKeys: true, addSigningKey: true, retireSigningKey: true, dropSigningKeys: true },
  upstreams: { addUpstream: true, listUpstreams: true, getUpstream: true, setUpstreamEnabled: true, setUpstreamTrustMfa: true, removeUpstream: true },
  upstreamIdentities: { findUpstreamIdentity: true, linkUpstreamIdentity: true, listUpstreamIdentities: true, touchUpstreamIdentity: true, unlinkUpstreamIdentity: true },
  games: { createGame: true, getGame: true, listGames: true, listGamesByAuthor: true, updateGame: true, deleteGame: true },
  grants: { getGrant: true, saveGrant: true, touchGrant: true, listGrants: true, revokeGrant: true },
  sessions: { getSession: true, setSession: true, updateSession: true, listUserSessions: true, deleteUserSession: true, deleteSession: true },
  emailLinks: { createEmailLink: true, getEmailLink: true, deleteEmailLink: true, listEmailLinks: true, redeemEmailLink: true },
  signIns: { recordSignIn: true, listSignIns: true },
  passkeys: { createPasskey: true, listPasskeys: true, getPasskeyByCredentialId: true, renamePasskey: true, deletePasskey: true, recordPasskeyUse: true },
  authenticatorApp: { getTotp: true, savePendingTotp: true, confirmTotp: true, useTotpStep: true, deleteTotp: true, replaceRecoveryCodes: true, useRecoveryCode: true, countRecoveryCodes: true, listRecoveryCodeHashes: true, listLegacyRecoveryCodes: true, rewriteRecoveryCodeHash: true, deleteFactors: true },
  moderation: { suspendUser: true, liftSuspension: true, hideBio: true, setModLevel: true, removeGame: true, addModerationAction: true, listModerationActions: true, createReport: true, getReport: true, listOpenReports: true, closeReport: true, findUsers: true },
  rateLimits: { rateLimiter: true },
  purge: { purgeExpired: true },
  securityEvents: { recordSecurityEvent: true },
  pictures: { insertPictures: true, getPicture: true, deletePictures: true, sweepPictures: true, usersWithoutPictureRows: true },
};
const LIFECYCLE = ['migrate', 'ping', 'close', 'onDatabaseError'] as const;

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

  it('is the SQLite store on a SQLite file and the PostgreSQL store on PostgreSQL', () => {
    expect(opened).toBeInstanceOf(TEST_DATABASE === 'sqlite' ? SqliteStore : PostgresStore);
    expect(opened).toBeInstanceOf(KnexStore);
  });

  it('opens `:memory:` as a throwaway SQLite file, removed when the store closes', async () => {
    const before = new Set(fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith('idp-memory-')));
    const memory = openStoreAt(':memory:');
    const created = fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith('idp-memory-') && !before.has(name));
    try {
      expect(memory).toBeInstanceOf(SqliteStore);
      expect(created).toHaveLength(1);
      await memory.migrate();
      const user = await memory.users.createUser({ name: 'memory', email: 'memory@example.com', passwordHash: 'h' }, NOW);
      expect(await memory.users.getPublicUser(user.id)).toMatchObject({ id: user.id, name: 'memory' });
    } finally {
      await memory.close();
    }
    expect(fs.existsSync(path.join(os.tmpdir(), created[0] ?? 'none'))).toBe(false);
  });

  it('migrates a migrated database again without change and answers a ping', async () => {
    await store.migrate();
    await expect(store.ping()).resolves.toBeUndefined();
  });

  it('creates users with the documented defaults and counts them', async () => {
    expect(await store.users.countUsers()).toBe(0);
    alice = await store.users.createUser({ name: 'Alice_1', email: 'alice@example.com', passwordHash: 'hash-a' }, NOW);
    expect(alice).toEqual(newUserRecord({ id: alice.id, name: 'Alice_1', email: 'alice@example.com', passwordHash: 'hash-a', createdAt: NOW }));
    bob = await store.users.createUser({ name: 'bob', email: 'bob@example.com', passwordHash: 'hash-b' }, NOW + 1);
    expect(bob.id).toBeGreaterThan(alice.id);
    expect(await store.users.countUsers()).toBe(2);
  });

  it('refuses a name taken in another case and a taken email, naming the field', async () => {
    const name = store.users.createUser({ name: 'ALICE_1', email: 'other@example.com', passwordHash: 'x' }, NOW);
    await expect(name).rejects.toBeInstanceOf(UniqueViolation);
    await expect(name).rejects.toMatchObject({ field: 'name' });
    await expect(store.users.createUser({ name: 'carol', email: 'alice@example.com', passwordHash: 'x' }, NOW)).rejects.toMatchObject({ field: 'email' });
    expect(await store.users.countUsers()).toBe(2);
  });

  it('reads a user by id, name (any case) and email; ids and keys that name no row find nothing', async () => {
    expect(await store.users.getUser(alice.id)).toEqual(alice);
    expect(await store.users.getUserByName('aLiCe_1')).toEqual(alice);
    expect(await store.users.getUserByEmail('ALICE@example.com')).toEqual(alice);
    expect(await store.users.getUser(0)).toBeUndefined();
    expect(await store.users.getUser(2 ** 31)).toBeUndefined();
    expect(await store.users.getUser(1.5)).toBeUndefined();
    expect(await store.users.getUserByName('alice\u0000')).toBeUndefined();
    expect(await store.users.getUserByEmail('nobody@example.com')).toBeUndefined();
  });

  it('reads exactly the public fields of a user, and nothing for an unknown id', async () => {
    expect(await store.users.getPublicUser(alice.id)).toEqual(publicUserRecord({ id: alice.id, name: 'Alice_1' }));
    expect(await store.users.getPublicUser(bob.id + 100)).toBeUndefined();
    expect(await store.users.getPublicUser(-1)).toBeUndefined();
  });

  it('updates only the patched fields, and the very next read sees the change', async () => {
    const updated = await store.users.updateUser(alice.id, { bio: 'hi', flairs: ['none', 'gold'], equippedFlair: 'gold', modLevel: 1 });
    expect(updated).toEqual({ ...alice, bio: 'hi', flairs: ['none', 'gold'], equippedFlair: 'gold', modLevel: 1 });
    expect(await store.users.getPublicUser(alice.id)).toMatchObject({ bio: 'hi', equippedFlair: 'gold', modLevel: 1 });
    expect(await store.users.updateUser(alice.id, {})).toEqual(updated);
    expect(await store.users.updateUser(bob.id + 100, { bio: 'x' })).toBeUndefined();
    alice = updated!;
  });

  it('sets a first password only on an account without one, once', async () => {
    await opened.knex('users').where({ id: bob.id }).update({ password_hash: NO_PASSWORD });
    expect(await Promise.all([store.users.setFirstPassword(bob.id, bob.passwordHash), store.users.setFirstPassword(bob.id, 'scrypt$second')])).toEqual([true, false]);
    expect((await store.users.getUser(bob.id))!.passwordHash).toBe(bob.passwordHash);
    expect(await store.users.setFirstPassword(alice.id, 'scrypt$other')).toBe(false);
    expect((await store.users.getUser(alice.id))!.passwordHash).toBe(alice.passwordHash);
    expect(await store.users.setFirstPassword(bob.id + 100, 'scrypt$x')).toBe(false);
  });

  it('records a heartbeat only while lastHeartbeat is what the caller read', async () => {
    const beat = await store.users.recordHeartbeat(alice.id, 0, NOW, 3);
    expect(beat).toMatchObject({ lastHeartbeat: NOW, playMinutes: 3 });
    expect(await store.users.recordHeartbeat(alice.id, 0, NOW + 1, 3)).toBeUndefined();
    expect(await store.users.getUser(alice.id)).toMatchObject({ lastHeartbeat: NOW, playMinutes: 3 });
    expect(await store.users.recordHeartbeat(0, 0, NOW, 1)).toBeUndefined();
  });

  it('swaps pfpTimestamp only from the expected value, and the high-water mark survives a removal', async () => {
    expect(await store.users.swapPfpTimestamp(bob.id, null, 100)).toBe(true);
    expect(await store.users.swapPfpTimestamp(bob.id, null, 200)).toBe(false);
    expect(await store.users.getUser(bob.id)).toMatchObject({ pfpTimestamp: 100, pfpHighWater: 100 });
    expect(await store.users.getPfpTimestamp(bob.id)).toBe(100);
    expect(await store.users.swapPfpTimestamp(bob.id, 100, null)).toBe(true);
    expect(await store.users.getUser(bob.id)).toMatchObject({ pfpTimestamp: null, pfpHighWater: 100 });
    // null: no picture; undefined: no such user (also for an id no row can have).
    expect(await store.users.getPfpTimestamp(bob.id)).toBeNull();
    expect(await store.users.getPfpTimestamp(bob.id + 100)).toBeUndefined();
    expect(await store.users.getPfpTimestamp(0)).toBeUndefined();
    expect(await store.users.swapPfpTimestamp(0, null, 1)).toBe(false);
  });

  it('records a security event: the password hash and the time of the change when its row says so, nothing else; an unknown id changes nothing', async () => {
    const dave = await store.users.createUser({ name: 'dave_events', email: 'dave-events@example.com', passwordHash: 'hash-d' }, NOW);
    const others = (await store.users.getUser(alice.id))!;
    expect(await store.securityEvents.recordSecurityEvent({ userId: dave.id }, NOTHING, NOW + 5, { passwordHash: 'hash-d2' })).toEqual(ENDED_NOTHING);
    expect(await store.users.getUser(dave.id)).toEqual({ ...dave, passwordHash: 'hash-d2' });
    expect(await store.securityEvents.recordSecurityEvent({ userId: dave.id }, { ...NOTHING, credentialChange: true }, NOW + 6)).toEqual(ENDED_NOTHING);
    expect(await store.users.getUser(dave.id)).toEqual({ ...dave, passwordHash: 'hash-d2', credentialsChangedAt: NOW + 6 });
    expect(await store.users.getUser(alice.id)).toEqual(others);
    expect(await store.users.deleteUser(dave.id, NOW + 7)).toBeDefined();
    expect(await store.securityEvents.recordSecurityEvent({ userId: dave.id }, NOTHING, NOW, { passwordHash: 'x' })).toBeUndefined();
    expect(await store.securityEvents.recordSecurityEvent({ userId: 0 }, NOTHING, NOW, { passwordHash: 'x' })).toBeUndefined();
    expect(await store.securityEvents.recordSecurityEvent({ userId: 2 ** 31 }, SECURITY_EVENTS.password_reset, NOW)).toBeUndefined();
  });

  it('stores apps, lists a user\'s oldest first, and changes a secret', async () => {
    await store.apps.createApp({ clientId: 'app-b', secretHash: hash('1'), public: false, ownerId: alice.id, name: 'B', redirectUris: ['https://b.example/cb'], postLogoutRedirectUris: [], grantTypes: ['authorization_code'], createdAt: NOW + 5 });
    await store.apps.createApp({ clientId: 'app-a', secretHash: hash('2'), public: false, ownerId: alice.id, name: 'A', redirectUris: ['https://a.example/cb', 'http://localhost:1/cb'], postLogoutRedirectUris: [], grantTypes: ['authorization_code'], createdAt: NOW });
    expect(await store.apps.getApp('app-a')).toEqual({
      clientId: 'app-a',
      secretHash: hash('2'),
      public: false,
      ownerId: alice.id,
      name: 'A',
      redirectUris: ['https://a.example/cb', 'http://localhost:1/cb'],
      postLogoutRedirectUris: [],
      grantTypes: ['authorization_code'],
      createdAt: NOW,
    });
    // A public app: no secret (null), its post-logout addresses kept in order.
    await store.apps.createApp({ clientId: 'app-p', secretHash: null, public: true, ownerId: bob.id, name: 'P', redirectUris: ['https://p.example/cb'], postLogoutRedirectUris: ['https://p.example/bye', 'http://localhost:2/bye'], grantTypes: ['authorization_code', 'refresh_token'], createdAt: NOW + 7 });
    expect(await store.apps.getApp('app-p')).toEqual({
      clientId: 'app-p',
      secretHash: null,
      public: true,
      ownerId: bob.id,
      name: 'P',
      redirectUris: ['https://p.example/cb'],
      postLogoutRedirectUris: ['https://p.example/bye', 'http://localhost:2/bye'],
      grantTypes: ['authorization_code', 'refresh_token'],
      createdAt: NOW + 7,
    });
    expect(await store.apps.listAppsByOwner(bob.id)).toEqual([await store.apps.getApp('app-p')]);
    expect(await store.apps.deleteApp('app-p')).toBe(true);
    expect((await store.apps.listAppsByOwner(alice.id)).map((a) => a.clientId)).toEqual(['app-a', 'app-b']);
    expect(await store.apps.listAppsByOwner(bob.id)).toEqual([]);
    expect(await store.apps.setAppSecret('app-a', hash('3'))).toBe(true);
    expect((await store.apps.getApp('app-a'))?.secretHash).toBe(hash('3'));
    expect(await store.apps.setAppSecret('no-such-app', hash('3'))).toBe(false);
    expect(await store.apps.getApp('no-such-app')).toBeUndefined();
    expect(await store.apps.getApp('app-a\u0000')).toBeUndefined();
  });

  it('changes the fields a patch names of an app, and nothing else', async () => {
    const before = (await store.apps.getApp('app-b'))!;
    expect(await store.apps.updateApp('app-b', { name: 'B2' })).toBe(true);
    expect(await store.apps.getApp('app-b')).toEqual({ ...before, name: 'B2' });
    expect(await store.apps.updateApp('app-b', { redirectUris: ['https://b2.example/cb', 'http://127.0.0.1/cb'], postLogoutRedirectUris: ['https://b2.example/bye'] })).toBe(true);
    const changed = { ...before, name: 'B2', redirectUris: ['https://b2.example/cb', 'http://127.0.0.1/cb'], postLogoutRedirectUris: ['https://b2.example/bye'] };
    expect(await store.apps.getApp('app-b')).toEqual(changed);
    // An empty patch changes nothing and says whether the app exists.
    expect(await store.apps.updateApp('app-b', {})).toBe(true);
    expect(await store.apps.updateApp('no-such-app', {})).toBe(false);
    expect(await store.apps.updateApp('no-such-app', { name: 'X' })).toBe(false);
    expect(await store.apps.updateApp('app-b', { name: before.name, redirectUris: before.redirectUris, postLogoutRedirectUris: before.postLogoutRedirectUris })).toBe(true);
    expect(await store.apps.getApp('app-b')).toEqual(before);
    expect((await store.apps.listAppsByOwner(alice.id)).map((a) => a.clientId)).toEqual(['app-a', 'app-b']);
  });

  const code = (c: string, over: Partial<CodeRecord> = {}): CodeRecord => ({
    codeHash: hash(c),
    clientId: 'app-a',
    userId: alice.id,
    scopes: ['userinfo', 'email'],
    redirectUri: 'https://a.example/cb',
    codeChallenge: null,
    nonce: null,
    authTime: NOW - 60_000,
    amr: ['pwd', 'otp', 'mfa'],
    expiresAt: NOW + 300_000,
    usedAt: null,
    createdAt: NOW,
    ...over,
  });
  const token = (c: string, codeHash: string | null, over: Partial<TokenRecord> = {}): TokenRecord => ({
    tokenHash: hash(c),
    clientId: 'app-a',
    userId: alice.id,
    scopes: ['userinfo', 'email'],
    codeHash,
    expiresAt: NOW + 600_000,
    revokedAt: null,
    createdAt: NOW,
    ...over,
  });

  it('redeems a code once, storing its token; a used or expired code is not redeemed', async () => {
    await store.apps.createCode(code('c'));
    await store.apps.createCode(code('d', { expiresAt: NOW - 1, codeChallenge: 'x'.repeat(43), redirectUri: null, scopes: [] }));
    expect(await store.apps.getCode(hash('c'))).toEqual(code('c'));
    expect(await store.apps.getCode(hash('d'))).toEqual(code('d', { expiresAt: NOW - 1, codeChallenge: 'x'.repeat(43), redirectUri: null, scopes: [] }));
    expect(await store.apps.getCode(hash('e'))).toBeUndefined();
    // The app and the code in one read, each found or not on its own.
    const appA = await store.apps.getApp('app-a');
    expect(appA).toBeDefined();
    expect(await store.apps.getAppAndCode('app-a', hash('c'))).toEqual({ app: appA, code: code('c') });
    expect(await store.apps.getAppAndCode('app-a', hash('e'))).toEqual({ app: appA, code: undefined });
    expect(await store.apps.getAppAndCode('no-such-app', hash('c'))).toEqual({ app: undefined, code: code('c') });
    expect(await store.apps.getAppAndCode('app-a\u0000', hash('e'))).toEqual({ app: undefined, code: undefined });

    expect(await store.apps.redeemCode(hash('c'), NOW + 1, token('t', hash('c')))).toEqual(REDEEMED);
    expect(await store.apps.getCode(hash('c'))).toMatchObject({ usedAt: NOW + 1 });
    // An expired code: nothing written. An unknown one counts as a replay with nothing to revoke.
    expect(await store.apps.redeemCode(hash('d'), NOW, token('v', hash('d')))).toEqual(EXPIRED);
    expect(await store.apps.getCode(hash('d'))).toMatchObject({ usedAt: null });
    expect(await store.apps.redeemCode(hash('e'), NOW, token('v', hash('e')))).toEqual({ outcome: 'replayed', revokedTokens: 0 });
    expect(await store.apps.getTokenWithUser(hash('v'))).toBeUndefined();
  });

  it('a second redemption of a code is a replay: no token stored, and the first one\'s token revoked in the same step', async () => {
    await store.apps.createCode(code('k'));
    expect(await store.apps.redeemCode(hash('k'), NOW + 1, token('w', hash('k')))).toEqual(REDEEMED);
    expect(await store.apps.redeemCode(hash('k'), NOW + 2, token('u', hash('k')))).toEqual({ outcome: 'replayed', revokedTokens: 1 });
    expect(await store.apps.getTokenWithUser(hash('u'))).toBeUndefined();
    expect((await store.apps.getTokenWithUser(hash('w')))?.token.revokedAt).toBe(NOW + 2);
    expect(await store.apps.redeemCode(hash('k'), NOW + 3, token('u', hash('k')))).toEqual({ outcome: 'replayed', revokedTokens: 0 });
    expect(await store.apps.getCode(hash('k'))).toMatchObject({ usedAt: NOW + 1 });
  });

  it('of concurrent redemptions of one code exactly one wins; the others are replays, and one of them revokes its token', async () => {
    await store.apps.createCode(code('9'));
    const tokens = '012345678'.split('');
    const results = await Promise.all(tokens.map((t) => store.apps.redeemCode(hash('9'), NOW + 1, token(t, hash('9')))));
    const winner = tokens.filter((_, i) => results[i]!.outcome === 'redeemed');
    expect(winner).toHaveLength(1);
    expect(results.filter((r) => r.outcome === 'replayed')).toHaveLength(8);
    // A loser that waited for the winner's lock still sees its token (PostgreSQL: migration 017).
    expect(results.reduce((n, r) => n + (r.outcome === 'replayed' ? r.revokedTokens : 0), 0)).toBe(1);
    expect((await store.apps.getTokenWithUser(hash(winner[0]!)))?.token.revokedAt).toBe(NOW + 1);
    for (const t of tokens.filter((t) => t !== winner[0])) expect(await store.apps.getTokenWithUser(hash(t))).toBeUndefined();
  });

  it('reads a token with its user, and revokes every token of a code once', async () => {
    const tokenWithUser = {
      token: { clientId: 'app-a', userId: alice.id, scopes: ['userinfo', 'email'], expiresAt: NOW + 600_000, revokedAt: null, createdAt: NOW },
      user: { id: alice.id, name: 'Alice_1', email: 'alice@example.com', pfpTimestamp: null },
    };
    expect(await store.apps.getTokenWithUser(hash('t'))).toEqual(tokenWithUser);
    // With an app, in one read, each found or not on its own.
    const appB = await store.apps.getApp('app-b');
    expect(appB).toBeDefined();
    expect(await store.apps.getAppAndToken('app-b', hash('t'))).toEqual({ app: appB, tokenWithUser });
    expect(await store.apps.getAppAndToken('app-b', hash('z'))).toEqual({ app: appB, tokenWithUser: undefined });
    expect(await store.apps.getAppAndToken('no-such-app', hash('t'))).toEqual({ app: undefined, tokenWithUser });
    expect(await store.apps.getAppAndToken('app-b', '\u0000')).toEqual({ app: appB, tokenWithUser: undefined });
    expect(await store.apps.revokeTokensOfCode(hash('c'), NOW + 9)).toBe(1);
    expect(await store.apps.revokeTokensOfCode(hash('c'), NOW + 10)).toBe(0);
    expect((await store.apps.getTokenWithUser(hash('t')))?.token.revokedAt).toBe(NOW + 9);
  });

  it("revokes one token for its own client only, once", async () => {
    await store.apps.createCode(code('R'));
    expect(await store.apps.redeemCode(hash('R'), NOW + 1, token('T', hash('R')))).toEqual(REDEEMED);
    expect(await store.apps.revokeToken(hash('T'), 'app-other', NOW + 2)).toBe(false);
    expect((await store.apps.getTokenWithUser(hash('T')))?.token.revokedAt).toBeNull();
    expect(await store.apps.revokeToken(hash('T'), 'app-a', NOW + 3)).toBe(true);
    expect(await store.apps.revokeToken(hash('T'), 'app-a', NOW + 4)).toBe(false);
    expect((await store.apps.getTokenWithUser(hash('T')))?.token.revokedAt).toBe(NOW + 3);
    expect(await store.apps.revokeToken(hash('Z'), 'app-a', NOW + 5)).toBe(false);
  });

  /** A key of its own for each refresh-token test row ("refresh-1", "access-1", "code-1"), 64 characters as a SHA-256 hex is. */
  const key = (kind: string, n: number | string): string => `${kind}-${n}`.padEnd(64, '.');
  const refreshToken = (n: number, over: Partial<RefreshTokenRecord> = {}): RefreshTokenRecord => ({
    tokenHash: key('refresh', n),
    familyId: key('code', 1),
    clientId: 'app-a',
    userId: alice.id,
    scopes: ['openid', 'offline_access'],
    authTime: NOW - 60_000,
    amr: ['pwd', 'otp', 'mfa'],
    accessTokenHash: key('access', n),
    familyExpiresAt: NOW + 9_000_000,
    expiresAt: NOW + 1_000_000,
    usedAt: null,
    revokedAt: null,
    createdAt: NOW,
    ...over,
  });
  const accessToken = (n: number, codeHash: string | null, over: Partial<TokenRecord> = {}): TokenRecord =>
    token('x', codeHash, { tokenHash: key('access', n), scopes: ['openid', 'offline_access'], ...over });
  const revokedAt = async (n: number): Promise<[number | null | undefined, number | null | undefined]> => [
    (await store.refreshTokens.getRefreshToken(key('refresh', n)))?.revokedAt,
    (await store.apps.getTokenWithUser(key('access', n)))?.token.revokedAt,
  ];

  it('redeems a code with the first refresh token of its family, rotates each token once, and revokes families', async () => {
    await store.apps.createCode(code('x', { codeHash: key('code', 1), scopes: ['openid', 'offline_access'] }));
    expect(await store.refreshTokens.redeemCodeWithRefresh(key('code', 1), NOW + 1, accessToken(1, key('code', 1)), refreshToken(1))).toEqual(REDEEMED);
    expect(await store.apps.getCode(key('code', 1))).toMatchObject({ usedAt: NOW + 1 });
    expect(await store.refreshTokens.getRefreshToken(key('refresh', 1))).toEqual(refreshToken(1));
    expect(await store.apps.getTokenWithUser(key('access', 1))).toMatchObject({ token: { revokedAt: null, scopes: ['openid', 'offline_access'] } });
    expect(await store.refreshTokens.getRefreshToken(key('refresh', 99))).toBeUndefined();
    expect(await store.refreshTokens.getRefreshToken('\u0000')).toBeUndefined();
    // A second redemption is a replay: nothing stored, nothing revoked here (the caller revokes the family).
    expect(await store.refreshTokens.redeemCodeWithRefresh(key('code', 1), NOW + 2, accessToken(2, key('code', 1)), refreshToken(2))).toEqual({ outcome: 'replayed', revokedTokens: 0 });
    expect(await store.refreshTokens.getRefreshToken(key('refresh', 2))).toBeUndefined();
    expect(await revokedAt(1)).toEqual([null, null]);
    // An expired code (code 'd' of an earlier test): nothing written; an unknown one is a replay; a bad key too.
    expect(await store.refreshTokens.redeemCodeWithRefresh(hash('d'), NOW, accessToken(2, hash('d')), refreshToken(2, { familyId: hash('d') }))).toEqual(EXPIRED);
    expect(await store.refreshTokens.getRefreshToken(key('refresh', 2))).toBeUndefined();
    expect(await store.refreshTokens.redeemCodeWithRefresh(key('code', 99), NOW, accessToken(2, null), refreshToken(2))).toEqual({ outcome: 'replayed', revokedTokens: 0 });
    expect(await store.refreshTokens.redeemCodeWithRefresh('\u0000', NOW, accessToken(2, null), refreshToken(2))).toEqual({ outcome: 'replayed', revokedTokens: 0 });

    // Rotation: the token is marked used, its successor stored with its access token.
    const second = refreshToken(2, { expiresAt: NOW + 2_000_000, createdAt: NOW + 10 });
    expect(await store.refreshTokens.rotateRefreshToken(key('refresh', 1), NOW + 10, { refresh: second, access: accessToken(2, null, { createdAt: NOW + 10 }) })).toEqual(ROTATED);
    expect(await store.refreshTokens.getRefreshToken(key('refresh', 1))).toEqual(refreshToken(1, { usedAt: NOW + 10 }));
    expect(await store.refreshTokens.getRefreshToken(key('refresh', 2))).toEqual(second);
    expect(await store.apps.getTokenWithUser(key('access', 2))).toMatchObject({ token: { revokedAt: null, createdAt: NOW + 10 } });
    // Unknown, a bad key, expired (at its idle expiry), revoked: dead, nothing written.
    const third = { refresh: refreshToken(3), access: accessToken(3, null) };
    expect(await store.refreshTokens.rotateRefreshToken(key('refresh', 99), NOW + 11, third)).toEqual(DEAD);
    expect(await store.refreshTokens.rotateRefreshToken('\u0000', NOW + 11, third)).toEqual(DEAD);
    expect(await store.refreshTokens.rotateRefreshToken(key('refresh', 2), NOW + 2_000_000, third)).toEqual(DEAD);
    expect(await store.refreshTokens.getRefreshToken(key('refresh', 2))).toEqual(second);
    expect(await store.refreshTokens.getRefreshToken(key('refresh', 3))).toBeUndefined();
    // The spent token again: the family (two refresh and two access tokens) revoked in the same step, once.
    expect(await store.refreshTokens.rotateRefreshToken(key('refresh', 1), NOW + 12, third)).toEqual({ outcome: 'reused', revokedTokens: 4 });
    expect(await store.refreshTokens.getRefreshToken(key('refresh', 3))).toBeUndefined();
    expect(await revokedAt(1)).toEqual([NOW + 12, NOW + 12]);
    expect(await revokedAt(2)).toEqual([NOW + 12, NOW + 12]);
    expect(await store.refreshTokens.rotateRefreshToken(key('refresh', 1), NOW + 13, third)).toEqual({ outcome: 'reused', revokedTokens: 0 });
    expect(await store.refreshTokens.rotateRefreshToken(key('refresh', 2), NOW + 13, third)).toEqual(DEAD);
    expect(await revokedAt(2)).toEqual([NOW + 12, NOW + 12]);

    // revokeRefreshFamily: every token of one family, once; a security event's refresh tokens: every family of the user.
    for (const n of [4, 5, 6]) {
      await store.apps.createCode(code('x', { codeHash: key('code', n), scopes: ['openid', 'offline_access'] }));
      const first = refreshToken(n, { familyId: key('code', n) });
      expect(await store.refreshTokens.redeemCodeWithRefresh(key('code', n), NOW + 20, accessToken(n, key('code', n)), first)).toEqual(REDEEMED);
    }
    expect(await store.refreshTokens.revokeRefreshFamily(key('code', 4), NOW + 21)).toBe(2);
    expect(await store.refreshTokens.revokeRefreshFamily(key('code', 4), NOW + 22)).toBe(0);
    expect(await store.refreshTokens.revokeRefreshFamily(key('code', 99), NOW + 22)).toBe(0);
    expect(await store.refreshTokens.revokeRefreshFamily('\u0000', NOW + 22)).toBe(0);
    expect(await revokedAt(4)).toEqual([NOW + 21, NOW + 21]);
    expect(await revokedAt(5)).toEqual([null, null]);
    const refreshOnly = { ...NOTHING, refreshTokens: true };
    expect((await store.securityEvents.recordSecurityEvent({ userId: bob.id }, refreshOnly, NOW + 23))?.tokens).toBe(0);
    expect(await store.securityEvents.recordSecurityEvent({ userId: 0 }, refreshOnly, NOW + 23)).toBeUndefined();
    expect((await store.securityEvents.recordSecurityEvent({ userId: alice.id }, refreshOnly, NOW + 23))?.tokens).toBe(4);
    expect(await revokedAt(5)).toEqual([NOW + 23, NOW + 23]);
    expect(await revokedAt(6)).toEqual([NOW + 23, NOW + 23]);
    expect(await revokedAt(4)).toEqual([NOW + 21, NOW + 21]);
    expect((await store.securityEvents.recordSecurityEvent({ userId: alice.id }, refreshOnly, NOW + 24))?.tokens).toBe(0);
  });

  it('of concurrent rotations of one refresh token exactly one wins; the others find it used and revoke the family', async () => {
    await store.apps.createCode(code('x', { codeHash: key('code', 7), scopes: ['openid', 'offline_access'] }));
    expect(await store.refreshTokens.redeemCodeWithRefresh(key('code', 7), NOW, accessToken(7, key('code', 7)), refreshToken(7, { familyId: key('code', 7) }))).toEqual(REDEEMED);
    const racers = [10, 11, 12, 13, 14, 15, 16, 17];
    const results = await Promise.all(
      racers.map((n) => store.refreshTokens.rotateRefreshToken(key('refresh', 7), NOW + 1, { refresh: refreshToken(n, { familyId: key('code', 7) }), access: accessToken(n, null) })),
    );
    const winners = racers.filter((_, i) => results[i]!.outcome === 'rotated');
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => r.outcome === 'reused')).toHaveLength(7);
    // The first loser revokes both refresh tokens and both access tokens; the others find nothing left.
    expect(results.reduce((n, r) => n + (r.outcome === 'reused' ? r.revokedTokens : 0), 0)).toBe(4);
    expect(await revokedAt(winners[0]!)).toEqual([NOW + 1, NOW + 1]);
    expect(await revokedAt(7)).toEqual([NOW + 1, NOW + 1]);
    for (const n of racers.filter((n) => n !== winners[0])) expect(await store.refreshTokens.getRefreshToken(key('refresh', n))).toBeUndefined();
  });

  it('revokes a family whose tokens are rotated, replayed and revoked in parallel: nothing deadlocks and no token survives', async () => {
    // Three rounds, each a new family of alice's: its first token spent, its second live.
    for (const round of [0, 1, 2]) {
      const family = key('code', 40 + round);
      const [spent, live] = [40 + round * 20, 41 + round * 20];
      await store.apps.createCode(code('x', { codeHash: family, scopes: ['openid', 'offline_access'] }));
      expect(await store.refreshTokens.redeemCodeWithRefresh(family, NOW, accessToken(spent, family), refreshToken(spent, { familyId: family }))).toEqual(REDEEMED);
      expect(await store.refreshTokens.rotateRefreshToken(key('refresh', spent), NOW + 1, { refresh: refreshToken(live, { familyId: family }), access: accessToken(live, null) })).toEqual(ROTATED);
      const next = [42, 43, 44, 45].map((n) => n + round * 20);
      const results = await Promise.all([
        ...next.map((n) => store.refreshTokens.rotateRefreshToken(key('refresh', live), NOW + 2, { refresh: refreshToken(n, { familyId: family }), access: accessToken(n, null) })),
        store.refreshTokens.rotateRefreshToken(key('refresh', spent), NOW + 2, { refresh: refreshToken(99, { familyId: family }), access: accessToken(99, null) }),
        store.refreshTokens.rotateRefreshToken(key('refresh', spent), NOW + 2, { refresh: refreshToken(98, { familyId: family }), access: accessToken(98, null) }),
        store.refreshTokens.revokeRefreshFamily(family, NOW + 2),
        store.securityEvents.recordSecurityEvent({ userId: alice.id }, { ...NOTHING, refreshTokens: true }, NOW + 2).then((ended) => ended?.tokens ?? 0),
      ]);
      const rotations = results.slice(0, 4) as Rotation[];
      expect(rotations.filter((r) => r.outcome === 'rotated').length).toBeLessThanOrEqual(1);
      expect((results.slice(4, 6) as Rotation[]).map((r) => r.outcome)).toEqual(['reused', 'reused']);
      // Whichever order the database chose, every token of the family ends revoked: a rotation that
      // won before a revocation had its new pair revoked with the rest.
      for (const n of [spent, live]) expect(await revokedAt(n)).toEqual([NOW + 2, NOW + 2]);
      for (const [i, n] of next.entries()) {
        if (rotations[i]!.outcome === 'rotated') expect(await revokedAt(n)).toEqual([NOW + 2, NOW + 2]);
        else expect(await store.refreshTokens.getRefreshToken(key('refresh', n))).toBeUndefined();
      }
    }
  });

  /** A device authorization of alice's app-a: "device-1" and "user-1" are its code hashes. */
  const device = (n: number, over: Partial<DeviceAuthorizationRecord> = {}): DeviceAuthorizationRecord => ({
    deviceCodeHash: key('device', n),
    userCodeHash: key('user', n),
    clientId: 'app-a',
    scopes: ['openid', 'offline_access'],
    intervalSeconds: 5,
    lastPolledAt: null,
    decision: null,
    userId: null,
    authTime: null,
    amr: null,
    decidedAt: null,
    usedAt: null,
    expiresAt: NOW + 600_000,
    createdAt: NOW,
    ...over,
  });
  const approvalBy = (user: UserRecord) => ({ userId: user.id, authTime: NOW - 60_000, amr: ['pwd', 'otp', 'mfa'] });
  const approved = (n: number, at: number, over: Partial<DeviceAuthorizationRecord> = {}): DeviceAuthorizationRecord =>
    device(n, { decision: 'approved', userId: alice.id, authTime: NOW - 60_000, amr: ['pwd', 'otp', 'mfa'], decidedAt: at, ...over });

  it('stores device authorizations by user code (unique), records one decision while unexpired, counts polls, and redeems an approved code once', async () => {
    await store.deviceAuthorizations.createDeviceAuthorization(device(1));
    expect(await store.deviceAuthorizations.getDeviceAuthorizationByUserCode(key('user', 1))).toEqual(device(1));
    // A taken user code: UniqueViolation, nothing written.
    const taken = store.deviceAuthorizations.createDeviceAuthorization(device(2, { userCodeHash: key('user', 1) }));
    await expect(taken).rejects.toBeInstanceOf(UniqueViolation);
    await expect(taken).rejects.toMatchObject({ field: 'userCode' });
    expect(await store.deviceAuthorizations.pollDeviceAuthorization(key('device', 2), NOW)).toEqual({ outcome: 'unknown' });
    expect(await store.deviceAuthorizations.getDeviceAuthorizationByUserCode(key('user', 1))).toEqual(device(1));
    expect(await store.deviceAuthorizations.getDeviceAuthorizationByUserCode(key('user', 99))).toBeUndefined();

    // Decisions: the first one counts; an expired code takes none; a denial keeps who denied only.
    expect(await store.deviceAuthorizations.decideDeviceAuthorization(key('user', 1), NOW + 10, alice.id, approvalBy(alice))).toBe(true);
    expect(await store.deviceAuthorizations.getDeviceAuthorizationByUserCode(key('user', 1))).toEqual(approved(1, NOW + 10));
    expect(await store.deviceAuthorizations.decideDeviceAuthorization(key('user', 1), NOW + 11, bob.id, null)).toBe(false);
    expect(await store.deviceAuthorizations.decideDeviceAuthorization(key('user', 1), NOW + 11, alice.id, approvalBy(alice))).toBe(false);
    expect(await store.deviceAuthorizations.getDeviceAuthorizationByUserCode(key('user', 1))).toEqual(approved(1, NOW + 10));
    await store.deviceAuthorizations.createDeviceAuthorization(device(3, { expiresAt: NOW + 100 }));
    expect(await store.deviceAuthorizations.decideDeviceAuthorization(key('user', 3), NOW + 100, alice.id, approvalBy(alice))).toBe(false);
    expect(await store.deviceAuthorizations.getDeviceAuthorizationByUserCode(key('user', 3))).toEqual(device(3, { expiresAt: NOW + 100 }));
    await store.deviceAuthorizations.createDeviceAuthorization(device(4));
    expect(await store.deviceAuthorizations.decideDeviceAuthorization(key('user', 4), NOW + 20, bob.id, null)).toBe(true);
    expect(await store.deviceAuthorizations.getDeviceAuthorizationByUserCode(key('user', 4))).toEqual(device(4, { decision: 'denied', userId: bob.id, decidedAt: NOW + 20 }));
    expect(await store.deviceAuthorizations.decideDeviceAuthorization(key('user', 99), NOW, alice.id, null)).toBe(false);
    expect(await store.deviceAuthorizations.decideDeviceAuthorization(key('user', 4), NOW, 0, null)).toBe(false);

    // Polls: the first is counted; one sooner than the interval after the last is slow_down and
    // adds 5 s; one the (new) interval after the last, or later, is polled again.
    await store.deviceAuthorizations.createDeviceAuthorization(device(5));
    expect(await store.deviceAuthorizations.pollDeviceAuthorization(key('device', 5), NOW + 1000)).toEqual({ outcome: 'polled', record: device(5, { lastPolledAt: NOW + 1000 }) });
    expect(await store.deviceAuthorizations.pollDeviceAuthorization(key('device', 5), NOW + 2000)).toEqual({ outcome: 'slow_down', record: device(5, { lastPolledAt: NOW + 2000, intervalSeconds: 10 }) });
    expect(await store.deviceAuthorizations.pollDeviceAuthorization(key('device', 5), NOW + 13_000)).toEqual({ outcome: 'polled', record: device(5, { lastPolledAt: NOW + 13_000, intervalSeconds: 10 }) });
    expect(await store.deviceAuthorizations.pollDeviceAuthorization(key('device', 5), NOW + 23_000)).toEqual({ outcome: 'polled', record: device(5, { lastPolledAt: NOW + 23_000, intervalSeconds: 10 }) });
    expect(await store.deviceAuthorizations.getDeviceAuthorizationByUserCode(key('user', 5))).toEqual(device(5, { lastPolledAt: NOW + 23_000, intervalSeconds: 10 }));
    // Whatever its state, a stored code's poll is counted (the caller reads the state).
    expect(await store.deviceAuthorizations.pollDeviceAuthorization(key('device', 4), NOW + 30)).toEqual({
      outcome: 'polled',
      record: device(4, { decision: 'denied', userId: bob.id, decidedAt: NOW + 20, lastPolledAt: NOW + 30 }),
    });
    expect(await store.deviceAuthorizations.pollDeviceAuthorization(key('device', 99), NOW)).toEqual({ outcome: 'unknown' });

    // Redemption: only an approved, unused, unexpired code, once, with its tokens in the same step.
    const deviceRefresh = (n: number, of: number) => refreshToken(n, { familyId: key('device', of), createdAt: NOW + 30 });
    expect(await store.deviceAuthorizations.redeemDeviceAuthorization(key('device', 5), NOW + 30, accessToken(200, null), deviceRefresh(200, 5))).toBe(false);
    expect(await store.deviceAuthorizations.redeemDeviceAuthorization(key('device', 4), NOW + 30, accessToken(200, null), deviceRefresh(200, 4))).toBe(false);
    expect(await store.deviceAuthorizations.redeemDeviceAuthorization(key('device', 99), NOW + 30, accessToken(200, null), deviceRefresh(200, 99))).toBe(false);
    expect(await store.apps.getTokenWithUser(key('access', 200))).toBeUndefined();
    expect(await store.refreshTokens.getRefreshToken(key('refresh', 200))).toBeUndefined();
    expect(await store.deviceAuthorizations.redeemDeviceAuthorization(key('device', 1), NOW + 30, accessToken(201, null), deviceRefresh(201, 1))).toBe(true);
    expect(await store.apps.getTokenWithUser(key('access', 201))).toMatchObject({ token: { clientId: 'app-a', userId: alice.id, revokedAt: null, scopes: ['openid', 'offline_access'] } });
    expect(await store.refreshTokens.getRefreshToken(key('refresh', 201))).toEqual(deviceRefresh(201, 1));
    expect(await store.deviceAuthorizations.getDeviceAuthorizationByUserCode(key('user', 1))).toEqual(approved(1, NOW + 10, { usedAt: NOW + 30 }));
    expect(await store.deviceAuthorizations.redeemDeviceAuthorization(key('device', 1), NOW + 31, accessToken(202, null), deviceRefresh(202, 1))).toBe(false);
    expect(await store.apps.getTokenWithUser(key('access', 202))).toBeUndefined();
    expect(await store.refreshTokens.getRefreshToken(key('refresh', 202))).toBeUndefined();
    // Approved, then expired before the device came back: nothing written.
    await store.deviceAuthorizations.createDeviceAuthorization(device(6, { expiresAt: NOW + 50 }));
    expect(await store.deviceAuthorizations.decideDeviceAuthorization(key('user', 6), NOW + 40, alice.id, approvalBy(alice))).toBe(true);
    expect(await store.deviceAuthorizations.redeemDeviceAuthorization(key('device', 6), NOW + 50, accessToken(203, null), deviceRefresh(203, 6))).toBe(false);
    expect(await store.apps.getTokenWithUser(key('access', 203))).toBeUndefined();
    expect(await store.deviceAuthorizations.getDeviceAuthorizationByUserCode(key('user', 6))).toEqual(approved(6, NOW + 40, { expiresAt: NOW + 50 }));
    // Without offline_access: the access token alone.
    await store.deviceAuthorizations.createDeviceAuthorization(device(7, { scopes: ['userinfo'] }));
    expect(await store.deviceAuthorizations.decideDeviceAuthorization(key('user', 7), NOW + 40, alice.id, approvalBy(alice))).toBe(true);
    expect(await store.deviceAuthorizations.redeemDeviceAuthorization(key('device', 7), NOW + 41, accessToken(204, null, { scopes: ['userinfo'] }), null)).toBe(true);
    expect(await store.apps.getTokenWithUser(key('access', 204))).toMatchObject({ token: { scopes: ['userinfo'], revokedAt: null } });
    expect(await store.refreshTokens.getRefreshToken(key('refresh', 204))).toBeUndefined();
  });

  it('of concurrent redemptions, decisions or polls of one device code each is counted once: one redemption, one decision, every poll', async () => {
    // Eight polls of one approved code redeem it at once: one gets its token, the others nothing.
    await store.deviceAuthorizations.createDeviceAuthorization(device(8));
    expect(await store.deviceAuthorizations.decideDeviceAuthorization(key('user', 8), NOW + 10, alice.id, approvalBy(alice))).toBe(true);
    const racers = [210, 211, 212, 213, 214, 215, 216, 217];
    const redeemed = await Promise.all(
      racers.map((n) => store.deviceAuthorizations.redeemDeviceAuthorization(key('device', 8), NOW + 20, accessToken(n, null), refreshToken(n, { familyId: key('device', 8) }))),
    );
    expect(redeemed.filter((r) => r)).toHaveLength(1);
    const winner = racers[redeemed.indexOf(true)]!;
    for (const n of racers) {
      expect(await store.apps.getTokenWithUser(key('access', n)), `access token ${n}`).toEqual(n === winner ? expect.anything() : undefined);
      expect(await store.refreshTokens.getRefreshToken(key('refresh', n)), `refresh token ${n}`).toEqual(n === winner ? refreshToken(n, { familyId: key('device', 8) }) : undefined);
    }
    expect(await store.deviceAuthorizations.getDeviceAuthorizationByUserCode(key('user', 8))).toEqual(approved(8, NOW + 10, { usedAt: NOW + 20 }));

    // Eight decisions at once (approvals by alice, denials by bob): exactly one is recorded.
    await store.deviceAuthorizations.createDeviceAuthorization(device(9));
    const deciders = [0, 1, 2, 3, 4, 5, 6, 7];
    const decided = await Promise.all(
      deciders.map((i) => (i % 2 === 0 ? store.deviceAuthorizations.decideDeviceAuthorization(key('user', 9), NOW + 30 + i, alice.id, approvalBy(alice)) : store.deviceAuthorizations.decideDeviceAuthorization(key('user', 9), NOW + 30 + i, bob.id, null))),
    );
    expect(decided.filter((d) => d)).toHaveLength(1);
    const first = decided.indexOf(true);
    expect(await store.deviceAuthorizations.getDeviceAuthorizationByUserCode(key('user', 9))).toEqual(
      first % 2 === 0 ? approved(9, NOW + 30 + first) : device(9, { decision: 'denied', userId: bob.id, decidedAt: NOW + 30 + first }),
    );

    // Six polls at the same instant right after a first one: each slow_down, each adding its 5 s.
    await store.deviceAuthorizations.createDeviceAuthorization(device(10));
    expect(await store.deviceAuthorizations.pollDeviceAuthorization(key('device', 10), NOW + 1000)).toMatchObject({ outcome: 'polled' });
    const polls = await Promise.all([0, 1, 2, 3, 4, 5].map(() => store.deviceAuthorizations.pollDeviceAuthorization(key('device', 10), NOW + 1000)));
    expect(polls.map((p) => p.outcome)).toEqual(Array(6).fill('slow_down'));
    expect(polls.map((p) => (p.outcome === 'unknown' ? 0 : p.record.intervalSeconds)).sort((a, b) => a - b)).toEqual([10, 15, 20, 25, 30, 35]);
    expect(await store.deviceAuthorizations.getDeviceAuthorizationByUserCode(key('user', 10))).toEqual(device(10, { lastPolledAt: NOW + 1000, intervalSeconds: 5 + 5 * 6 }));
  });

  it('purges expired tokens, device authorizations, codes and sessions in batches of at most `limit` per table, and nothing live', async () => {
    // Three codes redeemed into tokens that are already expired at NOW + 5000; one live pair.
    for (const [c, t] of [['A', 'D'], ['B', 'E'], ['C', 'F']] as const) {
      await store.apps.createCode(code(c, { expiresAt: NOW + 1000 }));
      expect(await store.apps.redeemCode(hash(c), NOW, token(t, hash(c), { expiresAt: NOW + 2000 }))).toEqual(REDEEMED);
    }
    await store.apps.createCode(code('L', { expiresAt: NOW + 9000 }));
    expect(await store.apps.redeemCode(hash('L'), NOW, token('P', hash('L'), { expiresAt: NOW + 9000 }))).toEqual(REDEEMED);
    for (const c of ['S', 'U', 'V']) await store.sessions.setSession(hash(c), '{}', NOW + 3000, null);
    await store.sessions.setSession(hash('W'), '{}', NOW + 9000, null);
    // Three refresh tokens past their idle expiry (used, revoked or neither: all go), and the live
    // ones of the tests above; their live access token stays.
    await store.apps.createCode(code('x', { codeHash: key('code', 8), scopes: ['openid', 'offline_access'], expiresAt: NOW + 9000 }));
    const expiring = (n: number) => refreshToken(n, { familyId: key('code', 8), expiresAt: NOW + 3000, createdAt: NOW + 100 + n });
    expect(await store.refreshTokens.redeemCodeWithRefresh(key('code', 8), NOW, accessToken(20, key('code', 8), { expiresAt: NOW + 9000 }), expiring(20))).toEqual(REDEEMED);
    expect(await store.refreshTokens.rotateRefreshToken(key('refresh', 20), NOW + 1, { refresh: expiring(21), access: accessToken(21, null, { expiresAt: NOW + 9000 }) })).toEqual(ROTATED);
    expect(await store.refreshTokens.rotateRefreshToken(key('refresh', 21), NOW + 2, { refresh: expiring(22), access: accessToken(22, null, { expiresAt: NOW + 9000 }) })).toEqual(ROTATED);
    expect(await store.refreshTokens.revokeRefreshFamily(key('code', 8), NOW + 3)).toBe(6);
    // Device authorizations 3 and 6 of the tests above have expired, decided or not; one more expires
    // at the cutoff itself.
    await store.deviceAuthorizations.createDeviceAuthorization(device(11, { expiresAt: NOW + 5000 }));
    const batch = { tokensExpiredBy: NOW + 5000, codesExpiredBy: NOW + 5000, sessionsExpiredBy: NOW + 5000, limit: 2 };
    expect(await store.purge.purgeExpired(batch)).toEqual({ tokens: 2, refreshTokens: 2, deviceAuthorizations: 2, codes: 2, sessions: 2 });
    // Code 'd' of an earlier test expired too: four codes in all.
    expect(await store.purge.purgeExpired(batch)).toEqual({ tokens: 1, refreshTokens: 1, deviceAuthorizations: 1, codes: 2, sessions: 1 });
    expect(await store.purge.purgeExpired(batch)).toEqual({ tokens: 0, refreshTokens: 0, deviceAuthorizations: 0, codes: 0, sessions: 0 });
    for (const n of [3, 6, 11]) expect(await store.deviceAuthorizations.getDeviceAuthorizationByUserCode(key('user', n))).toBeUndefined();
    expect(await store.deviceAuthorizations.getDeviceAuthorizationByUserCode(key('user', 1))).toMatchObject({ usedAt: NOW + 30 });
    for (const n of [20, 21, 22]) expect(await store.refreshTokens.getRefreshToken(key('refresh', n))).toBeUndefined();
    expect((await store.apps.getTokenWithUser(key('access', 22)))?.token.expiresAt).toBe(NOW + 9000);
    expect(await store.refreshTokens.getRefreshToken(key('refresh', 1))).toMatchObject({ usedAt: NOW + 10 });
    expect(await store.refreshTokens.getRefreshToken(key('refresh', 2))).toMatchObject({ expiresAt: NOW + 2_000_000 });
    for (const [c, t] of [['A', 'D'], ['B', 'E'], ['C', 'F']] as const) {
      expect(await store.apps.getCode(hash(c))).toBeUndefined();
      expect(await store.apps.getTokenWithUser(hash(t))).toBeUndefined();
    }
    expect(await store.apps.getCode(hash('L'))).toMatchObject({ usedAt: NOW });
    expect((await store.apps.getTokenWithUser(hash('P')))?.token.expiresAt).toBe(NOW + 9000);
    expect(await store.sessions.getSession(hash('W'), NOW)).toBe('{}');
    expect(await store.sessions.getSession(hash('S'), NOW)).toBeUndefined();
  });

  it('keeps signing keys: adds (retiring the others in the same step), lists those signing first, retires one, drops the long retired', async () => {
    const key = (kid: string, createdAt: number) => ({ kid, alg: 'RS256' as const, publicJwk: `{"kid":"${kid}"}`, privateJwe: `jwe-${kid}`, createdAt, retiredAt: null });
    expect(await store.signingKeys.listSigningKeys()).toEqual([]);
    await store.signingKeys.addSigningKey(key('k1', NOW), null);
    await store.signingKeys.addSigningKey(key('k2', NOW + 1), null);
    expect((await store.signingKeys.listSigningKeys()).map((k) => [k.kid, k.retiredAt])).toEqual([['k2', null], ['k1', null]]);
    await store.signingKeys.addSigningKey(key('k3', NOW + 2), NOW + 2);
    expect(await store.signingKeys.listSigningKeys()).toEqual([
      key('k3', NOW + 2),
      { ...key('k2', NOW + 1), retiredAt: NOW + 2 },
      { ...key('k1', NOW), retiredAt: NOW + 2 },
    ]);
    expect(await store.signingKeys.retireSigningKey('k3', NOW + 3)).toBe(true);
    expect(await store.signingKeys.retireSigningKey('k3', NOW + 4)).toBe(false);
    expect(await store.signingKeys.retireSigningKey('k3\u0000', NOW + 4)).toBe(false);
    expect(await store.signingKeys.dropSigningKeys(NOW + 1)).toEqual([]);
    expect((await store.signingKeys.dropSigningKeys(NOW + 2)).sort()).toEqual(['k1', 'k2']);
    expect((await store.signingKeys.listSigningKeys()).map((k) => [k.kid, k.retiredAt])).toEqual([['k3', NOW + 3]]);
    expect(await store.signingKeys.dropSigningKeys(NOW + 3)).toEqual(['k3']);
  });

  it('keeps upstream providers by slug: adds (a taken slug refused), lists oldest first, reads one, turns one off and on, trusts its mfa and stops, removes one', async () => {
    const oidc: UpstreamRecord = {
      slug: 'my-company-sso',
      name: 'My Company SSO',
      kind: 'oidc',
      preset: null,
      issuer: 'https://sso.example.com',
      authorizationEndpoint: null,
      tokenEndpoint: null,
      userinfoEndpoint: null,
      claimMapping: null,
      scopes: ['openid', 'email', 'profile'],
      clientId: 'client-1',
      clientSecretSealed: 'sealed-1',
      enabled: true,
      trustMfa: false,
      createdAt: NOW + 1,
    };
    const oauth2: UpstreamRecord = {
      slug: 'github',
      name: 'GitHub',
      kind: 'oauth2',
      preset: 'github',
      issuer: null,
      authorizationEndpoint: 'https://github.com/login/oauth/authorize',
      tokenEndpoint: 'https://github.com/login/oauth/access_token',
      userinfoEndpoint: 'https://api.github.com/user',
      claimMapping: { subject: 'id', name: 'login', email: 'email', emailVerified: null },
      scopes: ['read:user', 'user:email'],
      clientId: 'client-2',
      clientSecretSealed: 'sealed-2',
      enabled: true,
      trustMfa: false,
      createdAt: NOW,
    };
    const discord: UpstreamRecord = {
      ...oauth2,
      slug: 'discord',
      name: 'Discord',
      preset: 'discord',
      claimMapping: { subject: 'id', name: 'username', email: 'email', emailVerified: 'verified' },
      scopes: [],
      createdAt: NOW,
    };
    expect(await store.upstreams.listUpstreams()).toEqual([]);
    await store.upstreams.addUpstream(oidc);
    await store.upstreams.addUpstream(oauth2);
    await store.upstreams.addUpstream(discord);
    await expect(store.upstreams.addUpstream({ ...oidc, name: 'my company sso', clientId: 'other' })).rejects.toEqual(new UniqueViolation('slug'));
    // Oldest first; the same instant by slug.
    expect(await store.upstreams.listUpstreams()).toEqual([discord, oauth2, oidc]);
    expect(await store.upstreams.getUpstream('github')).toEqual(oauth2);
    expect(await store.upstreams.getUpstream('gitlab')).toBeUndefined();
    expect(await store.upstreams.getUpstream('github\u0000')).toBeUndefined();
    expect(await store.upstreams.setUpstreamEnabled('github', false)).toBe(true);
    expect(await store.upstreams.getUpstream('github')).toEqual({ ...oauth2, enabled: false });
    expect(await store.upstreams.setUpstreamEnabled('github', true)).toBe(true);
    expect(await store.upstreams.getUpstream('github')).toEqual(oauth2);
    expect(await store.upstreams.setUpstreamEnabled('gitlab', false)).toBe(false);
    expect(await store.upstreams.setUpstreamEnabled('github\u0000', false)).toBe(false);
    expect(await store.upstreams.setUpstreamTrustMfa('github', true)).toBe(true);
    expect(await store.upstreams.getUpstream('github')).toEqual({ ...oauth2, trustMfa: true });
    expect(await store.upstreams.getUpstream('my-company-sso')).toEqual(oidc);
    expect(await store.upstreams.setUpstreamTrustMfa('github', false)).toBe(true);
    expect(await store.upstreams.getUpstream('github')).toEqual(oauth2);
    expect(await store.upstreams.setUpstreamTrustMfa('gitlab', true)).toBe(false);
    expect(await store.upstreams.setUpstreamTrustMfa('github\u0000', true)).toBe(false);
    expect(await store.upstreams.removeUpstream('discord')).toBe(true);
    expect(await store.upstreams.removeUpstream('discord')).toBe(false);
    expect(await store.upstreams.removeUpstream('discord\u0000')).toBe(false);
    expect(await store.upstreams.listUpstreams()).toEqual([oauth2, oidc]);
  });

  it('deletes an app with its codes, tokens and device authorizations', async () => {
    await store.deviceAuthorizations.createDeviceAuthorization(device(12, { clientId: 'app-b' }));
    expect(await store.deviceAuthorizations.getDeviceAuthorizationByUserCode(key('user', 1))).toMatchObject({ clientId: 'app-a' });
    expect(await store.apps.deleteApp('app-a')).toBe(true);
    for (const n of [1, 4, 5, 7, 8, 9, 10]) expect(await store.deviceAuthorizations.getDeviceAuthorizationByUserCode(key('user', n))).toBeUndefined();
    expect(await store.deviceAuthorizations.getDeviceAuthorizationByUserCode(key('user', 12))).toEqual(device(12, { clientId: 'app-b' }));
    expect(await store.apps.getApp('app-a')).toBeUndefined();
    expect(await store.apps.getCode(hash('c'))).toBeUndefined();
    expect(await store.apps.getTokenWithUser(hash('t'))).toBeUndefined();
    expect(await store.refreshTokens.getRefreshToken(key('refresh', 2))).toBeUndefined();
    expect(await store.apps.deleteApp('app-a')).toBe(false);
    expect((await store.apps.listAppsByOwner(alice.id)).map((a) => a.clientId)).toEqual(['app-b']);
  });

  it('saves a grant, replacing its scopes and last use but keeping when it was first granted', async () => {
    expect(await store.grants.getGrant(alice.id, 'app-b')).toBeUndefined();
    await store.grants.saveGrant({ userId: alice.id, clientId: 'app-b', scopes: ['userinfo'] }, NOW + 100);
    expect(await store.grants.getGrant(alice.id, 'app-b')).toEqual({ userId: alice.id, clientId: 'app-b', scopes: ['userinfo'], createdAt: NOW + 100, lastUsedAt: NOW + 100 });
    await store.grants.saveGrant({ userId: alice.id, clientId: 'app-b', scopes: ['userinfo', 'email'] }, NOW + 200);
    expect(await store.grants.getGrant(alice.id, 'app-b')).toEqual({ userId: alice.id, clientId: 'app-b', scopes: ['userinfo', 'email'], createdAt: NOW + 100, lastUsedAt: NOW + 200 });
    expect(await store.grants.getGrant(bob.id, 'app-b')).toBeUndefined();
    expect(await store.grants.getGrant(alice.id, 'no-such-app')).toBeUndefined();
    expect(await store.grants.getGrant(0, 'app-b')).toBeUndefined();
    expect(await store.grants.getGrant(alice.id, 'app-b\u0000')).toBeUndefined();
  });

  it('touches only the last use of an existing grant, and creates none', async () => {
    await store.grants.touchGrant(alice.id, 'app-b', NOW + 300);
    expect(await store.grants.getGrant(alice.id, 'app-b')).toEqual({ userId: alice.id, clientId: 'app-b', scopes: ['userinfo', 'email'], createdAt: NOW + 100, lastUsedAt: NOW + 300 });
    await store.grants.touchGrant(bob.id, 'app-b', NOW + 300);
    expect(await store.grants.getGrant(bob.id, 'app-b')).toBeUndefined();
  });

  it("lists a user's grants with their app and its owner, oldest first", async () => {
    await store.apps.createApp({ clientId: 'app-g', secretHash: hash('4'), public: false, ownerId: bob.id, name: 'G', redirectUris: ['https://g.example/cb'], postLogoutRedirectUris: [], grantTypes: ['authorization_code'], createdAt: NOW + 6 });
    await store.grants.saveGrant({ userId: alice.id, clientId: 'app-g', scopes: ['userinfo'] }, NOW + 50);
    expect(await store.grants.listGrants(alice.id)).toEqual([
      { userId: alice.id, clientId: 'app-g', scopes: ['userinfo'], createdAt: NOW + 50, lastUsedAt: NOW + 50, appName: 'G', ownerId: bob.id, ownerName: 'bob' },
      { userId: alice.id, clientId: 'app-b', scopes: ['userinfo', 'email'], createdAt: NOW + 100, lastUsedAt: NOW + 300, appName: 'B', ownerId: alice.id, ownerName: 'Alice_1' },
    ]);
    expect(await store.grants.listGrants(bob.id)).toEqual([]);
    expect(await store.grants.listGrants(-1)).toEqual([]);
  });

  it("revokes a grant with that user's live tokens and unused codes for that app only; no grant, no change", async () => {
    // Tokens exist only by redeeming a code (which leaves that code used).
    const issue = async (c: string, userId: number, clientId: string): Promise<void> => {
      await store.apps.createCode(code(c, { userId, clientId }));
      expect(await store.apps.redeemCode(hash(c), NOW + 1, token(c, hash(c), { userId, clientId }))).toEqual(REDEEMED);
    };
    await issue('G', alice.id, 'app-g'); // live: revoked
    await issue('H', alice.id, 'app-g'); // revoked before: keeps its time
    expect(await store.apps.revokeTokensOfCode(hash('H'), NOW + 2)).toBe(1);
    await issue('I', alice.id, 'app-b'); // another app: untouched
    await issue('J', bob.id, 'app-g'); // another user: untouched
    await store.apps.createCode(code('K', { clientId: 'app-g' })); // unused: deleted
    await store.apps.createCode(code('M', { clientId: 'app-b' })); // another app: kept
    await store.apps.createCode(code('N', { userId: bob.id, clientId: 'app-g' })); // another user: kept
    const revokedAt = async (c: string): Promise<number | null | undefined> => (await store.apps.getTokenWithUser(hash(c)))?.token.revokedAt;

    // Bob never granted app-g: nothing of his changes.
    expect(await store.grants.revokeGrant(bob.id, 'app-g', NOW + 400, SECURITY_EVENTS.grant_revoked)).toBe(false);
    expect(await revokedAt('J')).toBeNull();
    expect(await store.apps.getCode(hash('N'))).toEqual(code('N', { userId: bob.id, clientId: 'app-g' }));

    expect(await store.grants.revokeGrant(alice.id, 'app-g', NOW + 400, SECURITY_EVENTS.grant_revoked)).toBe(true);
    expect(await store.grants.getGrant(alice.id, 'app-g')).toBeUndefined();
    expect((await store.grants.listGrants(alice.id)).map((g) => g.clientId)).toEqual(['app-b']);
    expect(await revokedAt('G')).toBe(NOW + 400);
    expect(await revokedAt('H')).toBe(NOW + 2);
    expect(await revokedAt('I')).toBeNull();
    expect(await revokedAt('J')).toBeNull();
    expect(await store.apps.getCode(hash('K'))).toBeUndefined();
    expect(await store.apps.getCode(hash('G'))).toEqual(code('G', { clientId: 'app-g', usedAt: NOW + 1 }));
    expect(await store.apps.getCode(hash('M'))).toEqual(code('M', { clientId: 'app-b' }));
    expect(await store.apps.getCode(hash('N'))).toEqual(code('N', { userId: bob.id, clientId: 'app-g' }));

    expect(await store.grants.revokeGrant(alice.id, 'app-g', NOW + 500, SECURITY_EVENTS.grant_revoked)).toBe(false);
    expect(await revokedAt('G')).toBe(NOW + 400);
    expect(await store.grants.revokeGrant(0, 'app-b', NOW + 500, SECURITY_EVENTS.grant_revoked)).toBe(false);
    expect(await store.grants.revokeGrant(alice.id, 'app-b\u0000', NOW + 500, SECURITY_EVENTS.grant_revoked)).toBe(false);
    expect(await store.grants.getGrant(alice.id, 'app-b')).toMatchObject({ scopes: ['userinfo', 'email'] });
  });

  it('stores games and reads them with their author, newest first', async () => {
    const first = await store.games.createGame({ authorId: alice.id, title: 'First', url: 'https://games.example/1', createdAt: NOW });
    const second = await store.games.createGame({ authorId: bob.id, title: 'Second', url: 'https://games.example/2', createdAt: NOW + 1 });
    expect(first).toEqual({ id: first.id, authorId: alice.id, title: 'First', url: 'https://games.example/1', createdAt: NOW });
    expect(await store.games.getGame(second.id)).toEqual({ ...second, authorName: 'bob' });
    expect((await store.games.listGames()).map((g) => [g.title, g.authorName])).toEqual([
      ['Second', 'bob'],
      ['First', 'Alice_1'],
    ]);
    expect(await store.games.getGame(second.id + 100)).toBeUndefined();
    expect(await store.games.getGame(2 ** 40)).toBeUndefined();
  });

  it("lists a user's games with their author, oldest first, and none for an unknown id", async () => {
    const [second, first] = await store.games.listGames();
    const third = await store.games.createGame({ authorId: alice.id, title: 'Third', url: 'https://games.example/3', createdAt: NOW + 2 });
    expect(await store.games.listGamesByAuthor(alice.id)).toEqual([first, { ...third, authorName: 'Alice_1' }]);
    expect(await store.games.listGamesByAuthor(bob.id)).toEqual([second]);
    expect(await store.games.listGamesByAuthor(bob.id + 100)).toEqual([]);
    expect(await store.games.listGamesByAuthor(2 ** 31)).toEqual([]);
  });

  it('changes the fields a patch names of a game, deletes one, and never gives its id again', async () => {
    const extra = await store.games.createGame({ authorId: bob.id, title: 'Extra', url: 'https://games.example/x', createdAt: NOW + 3 });
    expect(await store.games.updateGame(extra.id, { title: 'Extra 2' })).toBe(true);
    expect(await store.games.getGame(extra.id)).toEqual({ ...extra, title: 'Extra 2', authorName: 'bob' });
    expect(await store.games.updateGame(extra.id, { url: 'https://games.example/x2' })).toBe(true);
    expect(await store.games.updateGame(extra.id, {})).toBe(true);
    expect(await store.games.getGame(extra.id)).toEqual({ ...extra, title: 'Extra 2', url: 'https://games.example/x2', authorName: 'bob' });
    expect(await store.games.updateGame(extra.id + 100, { title: 'Nobody' })).toBe(false);
    expect(await store.games.updateGame(extra.id + 100, {})).toBe(false);
    // The newest game deleted: the next one still gets a new id.
    expect(await store.games.deleteGame(extra.id)).toBe(true);
    expect(await store.games.getGame(extra.id)).toBeUndefined();
    expect(await store.games.deleteGame(extra.id)).toBe(false);
    expect(await store.games.updateGame(extra.id, { title: 'Back' })).toBe(false);
    const next = await store.games.createGame({ authorId: bob.id, title: 'Next', url: 'https://games.example/n', createdAt: NOW + 4 });
    expect(next.id).toBeGreaterThan(extra.id);
    expect(await store.games.deleteGame(next.id)).toBe(true);
    expect((await store.games.listGames()).map((g) => g.title)).toEqual(['Third', 'Second', 'First']);
  });

  it('stores, replaces and expires sessions', async () => {
    await store.sessions.setSession(hash('1'), '{"a":1}', NOW + 1000, null);
    await store.sessions.setSession(hash('1'), '{"a":2}', NOW + 1000, alice.id);
    expect(await store.sessions.getSession(hash('1'), NOW)).toBe('{"a":2}');
    expect(await store.sessions.getSession(hash('1'), NOW + 1000)).toBeUndefined();
    expect(await store.sessions.getSession(hash('9'), NOW)).toBeUndefined();
    await store.sessions.deleteSession(hash('1'));
    expect(await store.sessions.getSession(hash('1'), NOW)).toBeUndefined();
  });

  it("ends a user's sessions except the one named, and no one else's", async () => {
    for (const c of ['4', '5', '6']) await store.sessions.setSession(hash(c), '{}', NOW + 1000, alice.id);
    await store.sessions.setSession(hash('7'), '{}', NOW + 1000, bob.id);
    expect(await store.securityEvents.recordSecurityEvent({ userId: alice.id, keepSessionIdHash: hash('4') }, { ...NOTHING, sessions: 'others' }, NOW)).toEqual({ ...ENDED_NOTHING, sessions: 2 });
    expect(await store.sessions.getSession(hash('4'), NOW)).toBe('{}');
    expect(await store.sessions.getSession(hash('5'), NOW)).toBeUndefined();
    expect(await store.securityEvents.recordSecurityEvent({ userId: alice.id }, { ...NOTHING, sessions: 'all' }, NOW)).toEqual({ ...ENDED_NOTHING, sessions: 1 });
    expect(await store.sessions.getSession(hash('4'), NOW)).toBeUndefined();
    expect(await store.sessions.getSession(hash('7'), NOW)).toBe('{}');
  });

  it('writes a session back only while its row stands as it was read: never again once ended, nor over another owner', async () => {
    await store.sessions.setSession(hash('8'), '{"a":1}', NOW + 1000, alice.id);
    expect(await store.sessions.updateSession(hash('8'), '{"a":2}', NOW + 2000, alice.id, null, alice.id)).toBe(true);
    expect(await store.sessions.getSession(hash('8'), NOW)).toBe('{"a":2}');
    // Read as alice's, then marked as nobody's (a suspension's marker): not written over.
    await store.sessions.setSession(hash('8'), '{"suspendedUserId":1}', NOW + 1000, null);
    expect(await store.sessions.updateSession(hash('8'), '{"a":3}', NOW + 2000, alice.id, null, alice.id)).toBe(false);
    expect(await store.sessions.getSession(hash('8'), NOW)).toBe('{"suspendedUserId":1}');
    // A signed-out visitor's session is written back while it is still nobody's.
    expect(await store.sessions.updateSession(hash('8'), '{"b":1}', NOW + 2000, null, null, null)).toBe(true);
    // Ended (deleted): never inserted again.
    await store.sessions.deleteSession(hash('8'));
    expect(await store.sessions.updateSession(hash('8'), '{"a":4}', NOW + 2000, alice.id, null, alice.id)).toBe(false);
    expect(await store.sessions.getSession(hash('8'), NOW)).toBeUndefined();
    expect(await store.sessions.updateSession('\u0000', '{}', NOW, null, null, null)).toBe(false);
  });

  const meta = (publicId: string, startedAt: number, lastSeenAt: number, userAgent: string | null, signInIp: string | null = null): SessionMeta => ({
    publicId,
    startedAt,
    lastSeenAt,
    userAgent,
    signInIp,
  });

  it("lists a user's live sessions that have a public id, most recently seen first, as setSession's meta last said", async () => {
    await store.sessions.setSession(hash('a'), '{}', NOW + 1000, alice.id, meta('pub-a', NOW, NOW + 5, 'Firefox', '203.0.113.7'));
    await store.sessions.setSession(hash('b'), '{}', NOW + 1000, alice.id, meta('pub-b', NOW + 1, NOW + 9, null, '2001:db8::1'));
    await store.sessions.setSession(hash('c'), '{}', NOW + 1000, alice.id, meta('pub-c', NOW + 2, NOW + 5, 'curl/8'));
    await store.sessions.setSession(hash('d'), '{}', NOW + 10, alice.id, meta('pub-d', NOW + 3, NOW + 9, null)); // expired at NOW + 10
    await store.sessions.setSession(hash('e'), '{}', NOW + 1000, alice.id); // no meta: not listed
    await store.sessions.setSession(hash('f'), '{}', NOW + 1000, bob.id, meta('pub-f', NOW, NOW, 'Safari'));
    expect(await store.sessions.listUserSessions(alice.id, NOW + 10)).toEqual([
      meta('pub-b', NOW + 1, NOW + 9, null, '2001:db8::1'),
      meta('pub-a', NOW, NOW + 5, 'Firefox', '203.0.113.7'),
      meta('pub-c', NOW + 2, NOW + 5, 'curl/8', null),
    ]);
    expect(await store.sessions.listUserSessions(bob.id, NOW + 10)).toEqual([meta('pub-f', NOW, NOW, 'Safari')]);
    expect(await store.sessions.listUserSessions(bob.id + 100, NOW)).toEqual([]);
    expect(await store.sessions.listUserSessions(0, NOW)).toEqual([]);

    // Replacing a session replaces its meta; signing out (no user, meta null) unlists it.
    await store.sessions.setSession(hash('a'), '{"x":1}', NOW + 1000, alice.id, meta('pub-a', NOW, NOW + 20, 'Firefox', '203.0.113.7'));
    await store.sessions.setSession(hash('c'), '{}', NOW + 1000, null, null);
    expect(await store.sessions.listUserSessions(alice.id, NOW + 10)).toEqual([meta('pub-a', NOW, NOW + 20, 'Firefox', '203.0.113.7'), meta('pub-b', NOW + 1, NOW + 9, null, '2001:db8::1')]);
    // The meta of a session signed in before its address was recorded (kept in its data) has no
    // signInIp: the column stays null.
    const { signInIp: _, ...before } = meta('pub-b', NOW + 1, NOW + 9, null);
    await store.sessions.setSession(hash('b'), '{}', NOW + 1000, alice.id, before as SessionMeta);
    expect(await store.sessions.listUserSessions(alice.id, NOW + 10)).toEqual([meta('pub-a', NOW, NOW + 20, 'Firefox', '203.0.113.7'), meta('pub-b', NOW + 1, NOW + 9, null, null)]);
    expect(await store.sessions.getSession(hash('a'), NOW)).toBe('{"x":1}');
    expect(await store.sessions.getSession(hash('c'), NOW)).toBe('{}');
  });

  it('ends one session of a user by its public id, and no one else\'s', async () => {
    expect(await store.sessions.deleteUserSession(bob.id, 'pub-a')).toBe(false);
    expect(await store.sessions.getSession(hash('a'), NOW)).toBe('{"x":1}');
    expect(await store.sessions.deleteUserSession(alice.id, 'pub-a')).toBe(true);
    expect(await store.sessions.getSession(hash('a'), NOW)).toBeUndefined();
    expect(await store.sessions.deleteUserSession(alice.id, 'pub-a')).toBe(false);
    expect(await store.sessions.deleteUserSession(alice.id, 'pub-c')).toBe(false); // signed out: no public id any more
    expect(await store.sessions.deleteUserSession(alice.id, 'no-such-id')).toBe(false);
    expect(await store.sessions.deleteUserSession(0, 'pub-b')).toBe(false);
    expect(await store.sessions.deleteUserSession(alice.id, 'pub-b\u0000')).toBe(false);
    expect(await store.sessions.listUserSessions(alice.id, NOW + 10)).toEqual([meta('pub-b', NOW + 1, NOW + 9, null)]);
    expect(await store.sessions.listUserSessions(bob.id, NOW + 10)).toEqual([meta('pub-f', NOW, NOW, 'Safari')]);
  });

  const link = (c: string, over: Partial<EmailLinkRecord> = {}): EmailLinkRecord => ({
    tokenHash: hash(c),
    userId: bob.id,
    purpose: 'verify',
    email: 'bob@example.com',
    expiresAt: NOW + 86_400_000,
    usedAt: null,
    createdAt: NOW,
    ...over,
  });

  it('stores email links by token hash and deletes them; unknown tokens find nothing', async () => {
    await store.emailLinks.createEmailLink(link('p'));
    await store.emailLinks.createEmailLink(link('q', { purpose: 'reset', email: null, expiresAt: NOW + 3_600_000 }));
    expect(await store.emailLinks.getEmailLink(hash('p'))).toEqual(link('p'));
    expect(await store.emailLinks.getEmailLink(hash('q'))).toEqual(link('q', { purpose: 'reset', email: null, expiresAt: NOW + 3_600_000 }));
    expect(await store.emailLinks.getEmailLink(hash('z'))).toBeUndefined();
    expect(await store.emailLinks.getEmailLink(`${'p'.repeat(63)}\u0000`)).toBeUndefined();
    await store.emailLinks.deleteEmailLink(hash('q'));
    expect(await store.emailLinks.getEmailLink(hash('q'))).toBeUndefined();
    await expect(store.emailLinks.deleteEmailLink(hash('z'))).resolves.toBeUndefined();
    await expect(store.emailLinks.deleteEmailLink('\u0000')).resolves.toBeUndefined();
    expect(await store.emailLinks.getEmailLink(hash('p'))).toEqual(link('p'));
    await store.emailLinks.createEmailLink(link('t', { createdAt: NOW + 5 }));
    await store.emailLinks.createEmailLink(link('u', { purpose: 'reset', email: null }));
    expect(await store.emailLinks.listEmailLinks(bob.id, 'verify')).toEqual([link('t', { createdAt: NOW + 5 }), link('p')]);
    expect(await store.emailLinks.listEmailLinks(bob.id, 'reset')).toEqual([link('u', { purpose: 'reset', email: null })]);
    expect(await store.emailLinks.listEmailLinks(alice.id, 'verify')).toEqual([]);
    await store.emailLinks.deleteEmailLink(hash('t'));
    await store.emailLinks.deleteEmailLink(hash('u'));
  });

  it("redeems a link once, applying its effect and voiding the user's other unused links of the purposes named only", async () => {
    await store.emailLinks.createEmailLink(link('r')); // another verify link of bob's: voided
    await store.emailLinks.createEmailLink(link('s', { purpose: 'reset', email: null })); // not a voided purpose: stays usable
    await store.emailLinks.createEmailLink(link('w', { userId: alice.id, email: 'alice@example.com' })); // alice's: untouched
    const before = (await store.users.getUser(bob.id))!;
    const others = (await store.users.getUser(alice.id))!;
    expect(before.emailVerifiedAt).toBeNull();

    expect(await store.emailLinks.redeemEmailLink(hash('p'), NOW + 10, { emailVerifiedAt: NOW + 10, whileEmailIs: 'bob@example.com' }, ['verify'], NOTHING)).toEqual(ENDED_NOTHING);
    expect(await store.users.getUser(bob.id)).toEqual({ ...before, emailVerifiedAt: NOW + 10 });
    expect(await store.emailLinks.getEmailLink(hash('p'))).toEqual(link('p', { usedAt: NOW + 10 }));
    expect(await store.emailLinks.getEmailLink(hash('r'))).toEqual(link('r', { usedAt: NOW + 10 }));
    expect(await store.emailLinks.getEmailLink(hash('s'))).toEqual(link('s', { purpose: 'reset', email: null }));
    expect(await store.emailLinks.getEmailLink(hash('w'))).toEqual(link('w', { userId: alice.id, email: 'alice@example.com' }));
    expect(await store.users.getUser(alice.id)).toEqual(others);

    // Used: not again, even with another effect.
    expect(await store.emailLinks.redeemEmailLink(hash('p'), NOW + 11, { passwordHash: 'stolen' }, ['verify'], NOTHING)).toBeUndefined();
    expect(await store.emailLinks.redeemEmailLink(hash('r'), NOW + 11, { passwordHash: 'stolen' }, [], NOTHING)).toBeUndefined();
    expect(await store.users.getUser(bob.id)).toEqual({ ...before, emailVerifiedAt: NOW + 10 });

    // A reset link sets the password hash.
    expect(await store.emailLinks.redeemEmailLink(hash('s'), NOW + 12, { passwordHash: 'hash-b3' }, ['reset', 'change', 'verify'], NOTHING)).toEqual(ENDED_NOTHING);
    expect(await store.users.getUser(bob.id)).toEqual({ ...before, emailVerifiedAt: NOW + 10, passwordHash: 'hash-b3' });
    expect(await store.emailLinks.getEmailLink(hash('s'))).toEqual(link('s', { purpose: 'reset', email: null, usedAt: NOW + 12 }));
  });

  it('does not redeem an unknown or expired link, nor one whose address condition no longer holds, and then writes nothing', async () => {
    const before = (await store.users.getUser(bob.id))!;
    expect(await store.emailLinks.redeemEmailLink(hash('z'), NOW + 20, { passwordHash: 'x' }, ['reset'], NOTHING)).toBeUndefined();
    expect(await store.emailLinks.redeemEmailLink('\u0000', NOW + 20, { passwordHash: 'x' }, ['reset'], NOTHING)).toBeUndefined();

    await store.emailLinks.createEmailLink(link('x', { purpose: 'reset', email: null, expiresAt: NOW + 20 }));
    expect(await store.emailLinks.redeemEmailLink(hash('x'), NOW + 20, { passwordHash: 'x' }, ['reset'], NOTHING)).toBeUndefined();
    expect(await store.emailLinks.getEmailLink(hash('x'))).toEqual(link('x', { purpose: 'reset', email: null, expiresAt: NOW + 20 }));

    // A verify link for an address bob no longer has: the link stays unused, nothing is voided.
    await store.emailLinks.createEmailLink(link('y', { email: 'old@example.com' }));
    await store.emailLinks.createEmailLink(link('v')); // would be voided by a redemption
    expect(await store.emailLinks.redeemEmailLink(hash('y'), NOW + 20, { emailVerifiedAt: NOW + 20, whileEmailIs: 'old@example.com' }, ['verify'], NOTHING)).toBeUndefined();
    expect(await store.emailLinks.getEmailLink(hash('y'))).toEqual(link('y', { email: 'old@example.com' }));
    expect(await store.emailLinks.getEmailLink(hash('v'))).toEqual(link('v'));
    expect(await store.users.getUser(bob.id)).toEqual(before);
  });

  it('changes the address with a change link; an address taken by now throws UniqueViolation(email) and writes nothing', async () => {
    const before = (await store.users.getUser(bob.id))!;
    await store.emailLinks.createEmailLink(link('t', { purpose: 'change', email: 'alice@example.com' }));
    const taken = store.emailLinks.redeemEmailLink(hash('t'), NOW + 30, { email: 'alice@example.com', emailVerifiedAt: NOW + 30 }, ['verify', 'change'], NOTHING);
    await expect(taken).rejects.toBeInstanceOf(UniqueViolation);
    await expect(taken).rejects.toMatchObject({ field: 'email' });
    expect(await store.emailLinks.getEmailLink(hash('t'))).toEqual(link('t', { purpose: 'change', email: 'alice@example.com' }));
    expect(await store.emailLinks.getEmailLink(hash('v'))).toEqual(link('v'));
    expect(await store.users.getUser(bob.id)).toEqual(before);

    await store.emailLinks.createEmailLink(link('u', { purpose: 'change', email: 'robert@example.com' }));
    expect(await store.emailLinks.redeemEmailLink(hash('u'), NOW + 31, { email: 'robert@example.com', emailVerifiedAt: NOW + 31 }, ['verify', 'change'], NOTHING)).toEqual(ENDED_NOTHING);
    bob = { ...before, email: 'robert@example.com', emailVerifiedAt: NOW + 31 };
    expect(await store.users.getUser(bob.id)).toEqual(bob);
    expect(await store.users.getUserByEmail('robert@example.com')).toEqual(bob);
    expect(await store.users.getUserByEmail('bob@example.com')).toBeUndefined();
    expect(await store.emailLinks.getEmailLink(hash('u'))).toEqual(link('u', { purpose: 'change', email: 'robert@example.com', usedAt: NOW + 31 }));
    expect(await store.emailLinks.getEmailLink(hash('t'))).toEqual(link('t', { purpose: 'change', email: 'alice@example.com', usedAt: NOW + 31 }));
    expect(await store.emailLinks.getEmailLink(hash('v'))).toEqual(link('v', { usedAt: NOW + 31 }));
    expect(await store.emailLinks.getEmailLink(hash('x'))).toEqual(link('x', { purpose: 'reset', email: null, expiresAt: NOW + 20 }));
  });

  let carol: UserRecord;

  it('deletes a user with their grants, sessions, codes, tokens, links, apps and games, leaving other users alone', async () => {
    carol = await store.users.createUser({ name: 'Carol', email: 'carol@example.com', passwordHash: 'hash-c', emailVerifiedAt: NOW + 40 }, NOW + 40);
    expect(carol).toMatchObject({ name: 'Carol', emailVerifiedAt: NOW + 40, createdAt: NOW + 40 });
    expect(carol.id).toBeGreaterThan(bob.id);
    const aliceBefore = (await store.users.getUser(alice.id))!;
    const bobBefore = (await store.users.getUser(bob.id))!;
    // Carol's own: a grant, a token and an unused code for alice's app-b, sessions, a link, a game.
    await store.grants.saveGrant({ userId: carol.id, clientId: 'app-b', scopes: ['userinfo'] }, NOW + 40);
    await store.apps.createCode(code('O', { userId: carol.id, clientId: 'app-b' }));
    expect(await store.apps.redeemCode(hash('O'), NOW + 41, token('O', hash('O'), { userId: carol.id, clientId: 'app-b' }))).toEqual(REDEEMED);
    await store.apps.createCode(code('P', { userId: carol.id, clientId: 'app-b' }));
    await store.sessions.setSession(hash('g'), '{}', NOW + 1000, carol.id, meta('pub-g', NOW + 40, NOW + 40, null));
    await store.sessions.setSession(hash('h'), '{}', NOW + 1000, carol.id);
    await store.emailLinks.createEmailLink(link('c', { userId: carol.id, email: 'carol@example.com' }));
    const game = await store.games.createGame({ authorId: carol.id, title: 'Carol', url: 'https://games.example/c', createdAt: NOW + 40 });
    // Carol's app, and bob's grant, token and code for it: they go with the app.
    await store.apps.createApp({ clientId: 'app-c', secretHash: hash('5'), public: false, ownerId: carol.id, name: 'C', redirectUris: ['https://c.example/cb'], postLogoutRedirectUris: [], grantTypes: ['authorization_code'], createdAt: NOW + 40 });
    await store.grants.saveGrant({ userId: bob.id, clientId: 'app-c', scopes: ['userinfo'] }, NOW + 40);
    await store.apps.createCode(code('Q', { userId: bob.id, clientId: 'app-c' }));
    expect(await store.apps.redeemCode(hash('Q'), NOW + 41, token('Q', hash('Q'), { userId: bob.id, clientId: 'app-c' }))).toEqual(REDEEMED);
    await store.apps.createCode(code('R', { userId: bob.id, clientId: 'app-c' }));
    // Device authorizations: one carol approved (goes with her), one of her app's that bob denied
    // (goes with the app), and bob's approval for app-b (stays).
    await store.deviceAuthorizations.createDeviceAuthorization(device(20, { clientId: 'app-b' }));
    expect(await store.deviceAuthorizations.decideDeviceAuthorization(key('user', 20), NOW + 41, carol.id, approvalBy(carol))).toBe(true);
    await store.deviceAuthorizations.createDeviceAuthorization(device(21, { clientId: 'app-c' }));
    expect(await store.deviceAuthorizations.decideDeviceAuthorization(key('user', 21), NOW + 41, bob.id, null)).toBe(true);
    await store.deviceAuthorizations.createDeviceAuthorization(device(22, { clientId: 'app-b' }));
    expect(await store.deviceAuthorizations.decideDeviceAuthorization(key('user', 22), NOW + 41, bob.id, approvalBy(bob))).toBe(true);
    // Bob's grant for app-g (bob's own app) stays.
    await store.grants.saveGrant({ userId: bob.id, clientId: 'app-g', scopes: ['userinfo'] }, NOW + 41);
    expect(await store.users.countUsers()).toBe(3);

    expect(await store.users.deleteUser(carol.id, NOW + 50)).toEqual(carol);

    expect(await store.users.countUsers()).toBe(2);
    expect(await store.users.getUser(carol.id)).toBeUndefined();
    expect(await store.users.getUserByName('carol')).toBeUndefined();
    expect(await store.users.getUserByEmail('carol@example.com')).toBeUndefined();
    expect(await store.grants.getGrant(carol.id, 'app-b')).toBeUndefined();
    expect(await store.grants.listGrants(carol.id)).toEqual([]);
    for (const c of ['O', 'P', 'Q', 'R']) expect(await store.apps.getCode(hash(c))).toBeUndefined();
    expect(await store.apps.getTokenWithUser(hash('O'))).toBeUndefined();
    expect(await store.apps.getTokenWithUser(hash('Q'))).toBeUndefined();
    expect(await store.sessions.getSession(hash('g'), NOW)).toBeUndefined();
    expect(await store.sessions.getSession(hash('h'), NOW)).toBeUndefined();
    expect(await store.sessions.listUserSessions(carol.id, NOW)).toEqual([]);
    expect(await store.emailLinks.getEmailLink(hash('c'))).toBeUndefined();
    expect(await store.games.getGame(game.id)).toBeUndefined();
    expect(await store.games.listGamesByAuthor(carol.id)).toEqual([]);
    expect(await store.apps.getApp('app-c')).toBeUndefined();
    expect(await store.apps.listAppsByOwner(carol.id)).toEqual([]);
    expect(await store.deviceAuthorizations.getDeviceAuthorizationByUserCode(key('user', 20))).toBeUndefined();
    expect(await store.deviceAuthorizations.getDeviceAuthorizationByUserCode(key('user', 21))).toBeUndefined();

    // Alice and bob keep everything of theirs that did not hang on carol.
    expect(await store.users.getUser(alice.id)).toEqual(aliceBefore);
    expect(await store.users.getUser(bob.id)).toEqual(bobBefore);
    expect((await store.grants.listGrants(alice.id)).map((g) => g.clientId)).toEqual(['app-b']);
    expect((await store.grants.listGrants(bob.id)).map((g) => g.clientId)).toEqual(['app-g']);
    expect(await store.apps.getTokenWithUser(hash('I'))).toMatchObject({ token: { clientId: 'app-b', userId: alice.id, revokedAt: null } });
    expect(await store.apps.getTokenWithUser(hash('J'))).toMatchObject({ token: { clientId: 'app-g', userId: bob.id, revokedAt: null } });
    expect(await store.apps.getCode(hash('M'))).toEqual(code('M', { clientId: 'app-b' }));
    expect(await store.sessions.listUserSessions(alice.id, NOW + 10)).toEqual([meta('pub-b', NOW + 1, NOW + 9, null)]);
    expect(await store.sessions.listUserSessions(bob.id, NOW + 10)).toEqual([meta('pub-f', NOW, NOW, 'Safari')]);
    expect(await store.emailLinks.getEmailLink(hash('w'))).toEqual(link('w', { userId: alice.id, email: 'alice@example.com' }));
    expect((await store.games.listGames()).map((g) => g.title)).toEqual(['Third', 'Second', 'First']);
    expect((await store.apps.listAppsByOwner(alice.id)).map((a) => a.clientId)).toEqual(['app-b']);
    expect(await store.deviceAuthorizations.getDeviceAuthorizationByUserCode(key('user', 22))).toEqual(device(22, { clientId: 'app-b', decision: 'approved', userId: bob.id, authTime: NOW - 60_000, amr: ['pwd', 'otp', 'mfa'], decidedAt: NOW + 41 }));
    expect(await store.deviceAuthorizations.getDeviceAuthorizationByUserCode(key('user', 12))).toEqual(device(12, { clientId: 'app-b' }));

    expect(await store.users.deleteUser(carol.id, NOW + 60)).toBeUndefined();
    expect(await store.users.deleteUser(0, NOW + 60)).toBeUndefined();
    expect(await store.users.deleteUser(2 ** 31, NOW + 60)).toBeUndefined();
    expect(await store.users.countUsers()).toBe(2);
  });

  it("refuses a deleted user's name in any case for good, frees their email, and never reuses their id", async () => {
    const retired = store.users.createUser({ name: 'CAROL', email: 'someone@example.com', passwordHash: 'x' }, NOW + 70);
    await expect(retired).rejects.toBeInstanceOf(UniqueViolation);
    await expect(retired).rejects.toMatchObject({ field: 'name' });
    await expect(store.users.createUser({ name: 'Carol', email: 'carol@example.com', passwordHash: 'x' }, NOW + 70)).rejects.toMatchObject({ field: 'name' });
    expect(await store.users.countUsers()).toBe(2);
    const dave = await store.users.createUser({ name: 'dave', email: 'carol@example.com', passwordHash: 'hash-d' }, NOW + 71);
    expect(dave).toEqual(newUserRecord({ id: dave.id, name: 'dave', email: 'carol@example.com', passwordHash: 'hash-d', createdAt: NOW + 71 }));
    expect(dave.id).toBeGreaterThan(carol.id);
    expect(await store.users.getUserByName('Carol')).toBeUndefined();
    expect(await store.users.countUsers()).toBe(3);
  });

  it('counts rate-limit points in the database, per key', async () => {
    const limiter = store.rateLimits.rateLimiter({ keyPrefix: 'store_test', points: 2, seconds: 60 });
    await limiter.consume('k');
    await limiter.consume('k');
    await expect(limiter.consume('k')).rejects.toMatchObject({ remainingPoints: 0, consumedPoints: 3 });
    await expect(limiter.consume('other')).resolves.toMatchObject({ remainingPoints: 1 });
    // A second limiter on the same rule (another instance) sees the same count.
    const again = store.rateLimits.rateLimiter({ keyPrefix: 'store_test', points: 2, seconds: 60 });
    await expect(again.consume('k')).rejects.toMatchObject({ remainingPoints: 0 });
  });

  it("records a user's sign-ins, keeps only the latest `keep`, and lists them newest first", async () => {
    const carol = await store.users.createUser({ name: 'carol_signins', email: 'carol.signins@example.com', passwordHash: 'h' }, NOW);
    // The third went through an upstream identity provider, named as shown.
    for (let i = 1; i <= 4; i++) await store.signIns.recordSignIn(carol.id, { at: NOW + i, ip: `10.0.0.${i}`, userAgent: `agent ${i}`, upstream: i === 3 ? 'My Company SSO' : null }, 3);
    await store.signIns.recordSignIn(bob.id, { at: NOW + 9, ip: '10.9.9.9', userAgent: 'bob agent', upstream: null }, 3);
    expect(await store.signIns.listSignIns(carol.id, 10)).toEqual([
      { at: NOW + 4, ip: '10.0.0.4', userAgent: 'agent 4', upstream: null },
      { at: NOW + 3, ip: '10.0.0.3', userAgent: 'agent 3', upstream: 'My Company SSO' },
      { at: NOW + 2, ip: '10.0.0.2', userAgent: 'agent 2', upstream: null },
    ]);
    expect(await store.signIns.listSignIns(carol.id, 1)).toEqual([{ at: NOW + 4, ip: '10.0.0.4', userAgent: 'agent 4', upstream: null }]);
    expect(await store.signIns.listSignIns(bob.id, 10)).toContainEqual({ at: NOW + 9, ip: '10.9.9.9', userAgent: 'bob agent', upstream: null });
    expect(await store.signIns.listSignIns(999_999, 10)).toEqual([]);
    await store.signIns.recordSignIn(999_999.5, { at: NOW, ip: '10.0.0.1', userAgent: 'x', upstream: null }, 3);
    await store.users.deleteUser(carol.id, NOW + 10);
    expect(await store.signIns.listSignIns(carol.id, 10)).toEqual([]);
  });

  it("stores a user's passkeys: unique credential ids, rename and delete by owner only, uses only as the counter allows, gone with the user", async () => {
    const erin = await store.users.createUser({ name: 'erin_passkeys', email: 'erin.passkeys@example.com', passwordHash: 'h' }, NOW);
    const base = { userId: erin.id, publicKey: 'pQECAyYgASFYIA', transports: ['internal', 'hybrid'], deviceType: 'multiDevice' as const, backedUp: true, createdAt: NOW };
    const first = await store.passkeys.createPasskey({ ...base, credentialId: 'cred-1', counter: 0, name: 'Phone' });
    const second = await store.passkeys.createPasskey({ ...base, credentialId: 'cred-2', counter: 7, deviceType: 'singleDevice', backedUp: false, transports: [], name: 'Key' });
    expect(first).toEqual({ ...base, id: first.id, credentialId: 'cred-1', counter: 0, name: 'Phone', lastUsedAt: null });
    expect(second.id).toBeGreaterThan(first.id);
    await expect(store.passkeys.createPasskey({ ...base, userId: bob.id, credentialId: 'cred-1', counter: 0, name: 'Again' })).rejects.toMatchObject({ field: 'credential' });
    expect(await store.passkeys.listPasskeys(erin.id)).toEqual([first, second]);
    expect(await store.passkeys.listPasskeys(bob.id)).toEqual([]);
    expect(await store.passkeys.getPasskeyByCredentialId('cred-2')).toEqual(second);
    expect(await store.passkeys.getPasskeyByCredentialId('cred-3')).toBeUndefined();

    expect(await store.passkeys.renamePasskey(erin.id, first.id, 'My phone')).toEqual({ ...first, name: 'My phone' });
    expect(await store.passkeys.renamePasskey(bob.id, first.id, 'Stolen')).toBeUndefined();
    expect(await store.passkeys.deletePasskey(bob.id, second.id, SECURITY_EVENTS.passkey_removed, NOW)).toBe('missing');

    // Counter 0 stays 0 (an authenticator without one); a counter must grow once it is not 0.
    expect(await store.passkeys.recordPasskeyUse(first.id, { counter: 0, deviceType: 'multiDevice', backedUp: false }, NOW + 5)).toBe(true);
    expect(await store.passkeys.recordPasskeyUse(second.id, { counter: 7, deviceType: 'singleDevice', backedUp: false }, NOW + 6)).toBe(false);
    expect(await store.passkeys.recordPasskeyUse(second.id, { counter: 0, deviceType: 'singleDevice', backedUp: false }, NOW + 6)).toBe(false);
    expect(await store.passkeys.recordPasskeyUse(second.id, { counter: 8, deviceType: 'singleDevice', backedUp: false }, NOW + 7)).toBe(true);
    expect(await store.passkeys.recordPasskeyUse(999_999, { counter: 9, deviceType: 'singleDevice', backedUp: false }, NOW + 7)).toBe(false);
    expect(await store.passkeys.listPasskeys(erin.id)).toEqual([
      { ...first, name: 'My phone', backedUp: false, lastUsedAt: NOW + 5 },
      { ...second, counter: 8, lastUsedAt: NOW + 7 },
    ]);

    expect(await store.passkeys.deletePasskey(erin.id, second.id, SECURITY_EVENTS.passkey_removed, NOW)).toBe('deleted');
    expect(await store.passkeys.deletePasskey(erin.id, second.id, SECURITY_EVENTS.passkey_removed, NOW)).toBe('missing');
    expect(await store.passkeys.getPasskeyByCredentialId('cred-2')).toBeUndefined();
    await store.users.deleteUser(erin.id, NOW + 10);
    expect(await store.passkeys.listPasskeys(erin.id)).toEqual([]);
    expect(await store.passkeys.getPasskeyByCredentialId('cred-1')).toBeUndefined();
  });
  it("links accounts at upstreams: one link per upstream and subject, listed oldest first with the upstream's name, touched, unlinked by their owner only and never the last way in, gone with their upstream or their user", async () => {
    const upstream = (slug: string, name: string): UpstreamRecord => ({
      slug,
      name,
      kind: 'oidc',
      preset: null,
      issuer: `https://${slug}.example`,
      authorizationEndpoint: null,
      tokenEndpoint: null,
      userinfoEndpoint: null,
      claimMapping: null,
      scopes: ['openid', 'email'],
      clientId: `client-${slug}`,
      clientSecretSealed: 'sealed',
      enabled: true,
      trustMfa: false,
      createdAt: NOW,
    });
    await store.upstreams.addUpstream(upstream('acme', 'Acme'));
    await store.upstreams.addUpstream(upstream('globex', 'Globex Login'));
    // No password: the links (and passkeys) are this account's only ways in.
    const frank = await store.users.createUser({ name: 'frank_upstreams', email: 'frank.upstreams@example.com', passwordHash: NO_PASSWORD }, NOW);

    const globex = await store.upstreamIdentities.linkUpstreamIdentity({ userId: frank.id, upstreamSlug: 'globex', subject: 'sub-1', email: 'frank@globex.example', createdAt: NOW + 2 });
    expect(globex).toEqual({ id: globex.id, userId: frank.id, upstreamSlug: 'globex', upstreamName: 'Globex Login', subject: 'sub-1', email: 'frank@globex.example', createdAt: NOW + 2, lastUsedAt: null });
    const acme = await store.upstreamIdentities.linkUpstreamIdentity({ userId: frank.id, upstreamSlug: 'acme', subject: 'sub-9', email: null, createdAt: NOW + 1 });
    expect(acme).toEqual({ id: acme.id, userId: frank.id, upstreamSlug: 'acme', upstreamName: 'Acme', subject: 'sub-9', email: null, createdAt: NOW + 1, lastUsedAt: null });
    // The same subject at another upstream is another person.
    const bobs = await store.upstreamIdentities.linkUpstreamIdentity({ userId: bob.id, upstreamSlug: 'acme', subject: 'sub-1', email: 'bob@acme.example', createdAt: NOW });
    // A linked (upstream, subject) is refused to anyone, its owner included.
    for (const userId of [bob.id, frank.id]) {
      await expect(store.upstreamIdentities.linkUpstreamIdentity({ userId, upstreamSlug: 'globex', subject: 'sub-1', email: null, createdAt: NOW + 3 })).rejects.toEqual(new UniqueViolation('upstreamIdentity'));
    }
    expect(await store.upstreamIdentities.listUpstreamIdentities(frank.id)).toEqual([acme, globex]);
    expect(await store.upstreamIdentities.listUpstreamIdentities(bob.id)).toEqual([bobs]);
    expect(await store.upstreamIdentities.listUpstreamIdentities(alice.id)).toEqual([]);
    expect(await store.upstreamIdentities.findUpstreamIdentity('globex', 'sub-1')).toEqual(globex);
    expect(await store.upstreamIdentities.findUpstreamIdentity('acme', 'sub-1')).toEqual(bobs);
    expect(await store.upstreamIdentities.findUpstreamIdentity('globex', 'SUB-1')).toBeUndefined();
    expect(await store.upstreamIdentities.findUpstreamIdentity('initech', 'sub-1')).toBeUndefined();

    await store.upstreamIdentities.touchUpstreamIdentity(acme.id, NOW + 5);
    await store.upstreamIdentities.touchUpstreamIdentity(999_999, NOW + 5);
    const touched = { ...acme, lastUsedAt: NOW + 5 };
    expect(await store.upstreamIdentities.findUpstreamIdentity('acme', 'sub-9')).toEqual(touched);
    expect(await store.upstreamIdentities.listUpstreamIdentities(bob.id)).toEqual([bobs]);

    // Someone else's link, or none at all, is missing and stays.
    expect(await store.upstreamIdentities.unlinkUpstreamIdentity(bob.id, globex.id, SECURITY_EVENTS.upstream_unlinked, NOW)).toBe('missing');
    expect(await store.upstreamIdentities.unlinkUpstreamIdentity(frank.id, bobs.id, SECURITY_EVENTS.upstream_unlinked, NOW)).toBe('missing');
    expect(await store.upstreamIdentities.unlinkUpstreamIdentity(frank.id, 999_999, SECURITY_EVENTS.upstream_unlinked, NOW)).toBe('missing');
    expect(await store.upstreamIdentities.unlinkUpstreamIdentity(999_999, globex.id, SECURITY_EVENTS.upstream_unlinked, NOW)).toBe('missing');
    expect(await store.upstreamIdentities.listUpstreamIdentities(bob.id)).toEqual([bobs]);
    // One of two goes; the other is the last way in of an account without password or passkey.
    expect(await store.upstreamIdentities.unlinkUpstreamIdentity(frank.id, globex.id, SECURITY_EVENTS.upstream_unlinked, NOW)).toBe('unlinked');
    expect(await store.upstreamIdentities.unlinkUpstreamIdentity(frank.id, globex.id, SECURITY_EVENTS.upstream_unlinked, NOW)).toBe('missing');
    expect(await store.upstreamIdentities.unlinkUpstreamIdentity(frank.id, acme.id, SECURITY_EVENTS.upstream_unlinked, NOW)).toBe('last');
    expect(await store.upstreamIdentities.listUpstreamIdentities(frank.id)).toEqual([touched]);
    // With a passkey it is not the last way in.
    const passkey = await store.passkeys.createPasskey({ userId: frank.id, credentialId: 'cred-frank', publicKey: 'pk', counter: 0, transports: [], deviceType: 'singleDevice', backedUp: false, name: 'Key', createdAt: NOW });
    expect(await store.upstreamIdentities.unlinkUpstreamIdentity(frank.id, acme.id, SECURITY_EVENTS.upstream_unlinked, NOW)).toBe('unlinked');
    expect(await store.upstreamIdentities.listUpstreamIdentities(frank.id)).toEqual([]);
    // Now the passkey is the last way in: it stays.
    expect(await store.passkeys.deletePasskey(frank.id, passkey.id, SECURITY_EVENTS.passkey_removed, NOW)).toBe('last');
    expect(await store.passkeys.listPasskeys(frank.id)).toHaveLength(1);
    // With a password, the only link is not the last way in either.
    expect(await store.upstreamIdentities.unlinkUpstreamIdentity(bob.id, bobs.id, SECURITY_EVENTS.upstream_unlinked, NOW)).toBe('unlinked');
    expect(await store.upstreamIdentities.listUpstreamIdentities(bob.id)).toEqual([]);

    // Of two parallel unlinks of a password-less account's two links, exactly one goes, every time.
    const grace = await store.users.createUser({ name: 'grace_upstreams', email: 'grace.upstreams@example.com', passwordHash: NO_PASSWORD }, NOW);
    let kept = await store.upstreamIdentities.linkUpstreamIdentity({ userId: grace.id, upstreamSlug: 'acme', subject: 'grace-0', email: null, createdAt: NOW });
    for (let round = 1; round <= 10; round++) {
      const added = await store.upstreamIdentities.linkUpstreamIdentity({ userId: grace.id, upstreamSlug: round % 2 ? 'globex' : 'acme', subject: `grace-${round}`, email: null, createdAt: NOW + round });
      const outcomes = await Promise.all([store.upstreamIdentities.unlinkUpstreamIdentity(grace.id, kept.id, SECURITY_EVENTS.upstream_unlinked, NOW), store.upstreamIdentities.unlinkUpstreamIdentity(grace.id, added.id, SECURITY_EVENTS.upstream_unlinked, NOW)]);
      expect([...outcomes].sort()).toEqual(['last', 'unlinked']);
      const left = await store.upstreamIdentities.listUpstreamIdentities(grace.id);
      expect(left).toEqual([outcomes[0] === 'last' ? kept : added]);
      kept = left[0]!;
    }

    // A passkey's removal and a link's, racing on an account with only those two ways in: exactly one goes, every time.
    for (let round = 1; round <= 10; round++) {
      const henry = await store.users.createUser({ name: `henry_${round}`, email: `henry.${round}@example.com`, passwordHash: NO_PASSWORD }, NOW);
      const key = await store.passkeys.createPasskey({ userId: henry.id, credentialId: `cred-henry-${round}`, publicKey: 'pk', counter: 0, transports: [], deviceType: 'singleDevice', backedUp: false, name: 'Key', createdAt: NOW });
      const link = await store.upstreamIdentities.linkUpstreamIdentity({ userId: henry.id, upstreamSlug: 'acme', subject: `henry-${round}`, email: null, createdAt: NOW });
      const [removed, unlinked] = await Promise.all([store.passkeys.deletePasskey(henry.id, key.id, SECURITY_EVENTS.passkey_removed, NOW), store.upstreamIdentities.unlinkUpstreamIdentity(henry.id, link.id, SECURITY_EVENTS.upstream_unlinked, NOW)]);
      expect(removed === 'deleted' ? unlinked : removed).toBe('last');
      expect([removed, unlinked]).toContain(removed === 'deleted' ? 'deleted' : 'unlinked');
      expect((await store.passkeys.listPasskeys(henry.id)).length + (await store.upstreamIdentities.listUpstreamIdentities(henry.id)).length).toBe(1);
      await store.users.deleteUser(henry.id, NOW);
    }

    // Removing an upstream removes its links; deleting a user removes theirs.
    const graceGlobex = await store.upstreamIdentities.linkUpstreamIdentity({ userId: grace.id, upstreamSlug: 'globex', subject: 'grace-globex', email: null, createdAt: NOW + 20 });
    await store.upstreamIdentities.linkUpstreamIdentity({ userId: bob.id, upstreamSlug: 'globex', subject: 'bob-globex', email: null, createdAt: NOW + 20 });
    const bobAcme = await store.upstreamIdentities.linkUpstreamIdentity({ userId: bob.id, upstreamSlug: 'acme', subject: 'bob-acme', email: null, createdAt: NOW + 21 });
    expect(await store.upstreams.removeUpstream('globex')).toBe(true);
    expect(await store.upstreamIdentities.findUpstreamIdentity('globex', 'bob-globex')).toBeUndefined();
    expect(await store.upstreamIdentities.findUpstreamIdentity('globex', graceGlobex.subject)).toBeUndefined();
    expect(await store.upstreamIdentities.listUpstreamIdentities(bob.id)).toEqual([bobAcme]);
    expect(await store.upstreamIdentities.listUpstreamIdentities(grace.id)).toEqual(kept.upstreamSlug === 'acme' ? [kept] : []);
    await store.upstreamIdentities.linkUpstreamIdentity({ userId: frank.id, upstreamSlug: 'acme', subject: 'frank-again', email: null, createdAt: NOW + 30 });
    for (const user of [frank, grace]) {
      await store.users.deleteUser(user.id, NOW + 40);
      expect(await store.upstreamIdentities.listUpstreamIdentities(user.id)).toEqual([]);
    }
    expect(await store.upstreamIdentities.findUpstreamIdentity('acme', 'frank-again')).toBeUndefined();
    expect(await store.upstreamIdentities.findUpstreamIdentity('acme', kept.subject)).toBeUndefined();
    expect(await store.upstreamIdentities.listUpstreamIdentities(bob.id)).toEqual([bobAcme]);
    expect(await store.upstreamIdentities.unlinkUpstreamIdentity(bob.id, bobAcme.id, SECURITY_EVENTS.upstream_unlinked, NOW)).toBe('unlinked');
    expect(await store.upstreams.removeUpstream('acme')).toBe(true);
  });

  it('keeps an authenticator app: a pending setup replaced until confirmed once, each time step used once, recovery codes used once, all gone with the user', async () => {
    const dana = await store.users.createUser({ name: 'dana_totp', email: 'dana.totp@example.com', passwordHash: 'h' }, NOW);
    expect(await store.authenticatorApp.getTotp(dana.id)).toBeUndefined();
    expect(await store.authenticatorApp.useTotpStep(dana.id, 5)).toBe(false);
    expect(await store.authenticatorApp.savePendingTotp(dana.id, 'jwe-1', NOW)).toBe(true);
    expect(await store.authenticatorApp.savePendingTotp(dana.id, 'jwe-2', NOW + 1)).toBe(true);
    expect(await store.authenticatorApp.getTotp(dana.id)).toEqual({ userId: dana.id, secretJwe: 'jwe-2', confirmedAt: null, lastStep: null, createdAt: NOW + 1 });
    // A pending setup takes no code, and confirming needs the seed it still has.
    expect(await store.authenticatorApp.useTotpStep(dana.id, 5)).toBe(false);
    expect(await store.authenticatorApp.confirmTotp(dana.id, 'jwe-1', 10, NOW + 2, [hash('a')], NOTHING)).toBeUndefined();
    expect(await store.authenticatorApp.countRecoveryCodes(dana.id)).toBe(0);
    expect(await store.authenticatorApp.confirmTotp(dana.id, 'jwe-2', 10, NOW + 2, [hash('a'), hash('b')], NOTHING)).toEqual(ENDED_NOTHING);
    expect(await store.authenticatorApp.confirmTotp(dana.id, 'jwe-2', 11, NOW + 3, [hash('c')], NOTHING)).toBeUndefined();
    expect(await store.authenticatorApp.getTotp(dana.id)).toEqual({ userId: dana.id, secretJwe: 'jwe-2', confirmedAt: NOW + 2, lastStep: 10, createdAt: NOW + 1 });
    // Confirmed: a new setup is refused, and only later steps are taken.
    expect(await store.authenticatorApp.savePendingTotp(dana.id, 'jwe-3', NOW + 4)).toBe(false);
    expect((await store.authenticatorApp.getTotp(dana.id))?.secretJwe).toBe('jwe-2');
    expect(await store.authenticatorApp.useTotpStep(dana.id, 10)).toBe(false);
    expect(await store.authenticatorApp.useTotpStep(dana.id, 9)).toBe(false);
    expect(await store.authenticatorApp.useTotpStep(dana.id, 11)).toBe(true);
    expect(await store.authenticatorApp.useTotpStep(dana.id, 11)).toBe(false);
    expect((await store.authenticatorApp.getTotp(dana.id))?.lastStep).toBe(11);
    // Recovery codes: each once, only the user's own, a new set replaces the old.
    expect(await store.authenticatorApp.countRecoveryCodes(dana.id)).toBe(2);
    expect(await store.authenticatorApp.useRecoveryCode(bob.id, hash('a'), NOW + 5)).toBe(false);
    expect(await store.authenticatorApp.useRecoveryCode(dana.id, hash('a'), NOW + 5)).toBe(true);
    expect(await store.authenticatorApp.useRecoveryCode(dana.id, hash('a'), NOW + 6)).toBe(false);
    expect(await store.authenticatorApp.countRecoveryCodes(dana.id)).toBe(1);
    await store.authenticatorApp.replaceRecoveryCodes(dana.id, [hash('d'), hash('e'), hash('f')], NOW + 7);
    expect(await store.authenticatorApp.countRecoveryCodes(dana.id)).toBe(3);
    expect(await store.authenticatorApp.useRecoveryCode(dana.id, hash('b'), NOW + 8)).toBe(false);
    expect(await store.authenticatorApp.useRecoveryCode(dana.id, hash('d'), NOW + 8)).toBe(true);
    // The unused hashes; rows hashed the old way (not starting with the current prefix), rewritten compare-and-set.
    expect((await store.authenticatorApp.listRecoveryCodeHashes(dana.id)).sort()).toEqual([hash('e'), hash('f')].sort());
    expect(await store.authenticatorApp.listRecoveryCodeHashes(bob.id)).toEqual([]);
    const slow = `scrypt$1$8$1$salt$${'x'.repeat(43)}`;
    await store.authenticatorApp.replaceRecoveryCodes(dana.id, [hash('e'), hash('f'), slow], NOW + 8);
    expect(await store.authenticatorApp.listLegacyRecoveryCodes('scrypt$')).toEqual(expect.arrayContaining([{ userId: dana.id, codeHash: hash('e') }, { userId: dana.id, codeHash: hash('f') }]));
    expect((await store.authenticatorApp.listLegacyRecoveryCodes('scrypt$')).filter((r) => r.userId === dana.id)).toHaveLength(2);
    expect(await store.authenticatorApp.rewriteRecoveryCodeHash(dana.id, hash('e'), `${slow}e`)).toBe(true);
    expect(await store.authenticatorApp.rewriteRecoveryCodeHash(dana.id, hash('e'), `${slow}E`)).toBe(false);
    expect(await store.authenticatorApp.rewriteRecoveryCodeHash(bob.id, hash('f'), `${slow}f`)).toBe(false);
    expect((await store.authenticatorApp.listLegacyRecoveryCodes('scrypt$')).filter((r) => r.userId === dana.id)).toEqual([{ userId: dana.id, codeHash: hash('f') }]);
    expect(await store.authenticatorApp.useRecoveryCode(dana.id, `${slow}e`, NOW + 8)).toBe(true);
    await store.authenticatorApp.replaceRecoveryCodes(dana.id, [hash('d'), hash('e'), hash('f')], NOW + 7);
    expect(await store.authenticatorApp.useRecoveryCode(dana.id, hash('d'), NOW + 8)).toBe(true);
    // Switching off deletes the factor and its codes; a new setup may then start.
    expect(await store.authenticatorApp.deleteTotp(dana.id, NOTHING, NOW)).toBe(true);
    expect(await store.authenticatorApp.deleteTotp(dana.id, NOTHING, NOW)).toBe(false);
    expect(await store.authenticatorApp.getTotp(dana.id)).toBeUndefined();
    expect(await store.authenticatorApp.countRecoveryCodes(dana.id)).toBe(0);
    expect(await store.authenticatorApp.savePendingTotp(dana.id, 'jwe-4', NOW + 9)).toBe(true);
    expect(await store.authenticatorApp.confirmTotp(dana.id, 'jwe-4', 20, NOW + 9, [hash('g')], NOTHING)).toEqual(ENDED_NOTHING);
    // An operator's reset: every factor at once, only the user's.
    await store.passkeys.createPasskey({ userId: dana.id, credentialId: 'dana-reset-1', publicKey: 'k', counter: 0, transports: [], deviceType: 'singleDevice', backedUp: false, name: 'A', createdAt: NOW });
    await store.passkeys.createPasskey({ userId: dana.id, credentialId: 'dana-reset-2', publicKey: 'k', counter: 0, transports: [], deviceType: 'singleDevice', backedUp: false, name: 'B', createdAt: NOW });
    const bobsBefore = await store.passkeys.listPasskeys(bob.id);
    expect(await store.authenticatorApp.deleteFactors(dana.id, NOTHING, NOW)).toEqual({ passkeys: 2, totp: true, endedSessions: 0 });
    expect([await store.passkeys.listPasskeys(dana.id), await store.authenticatorApp.getTotp(dana.id), await store.authenticatorApp.countRecoveryCodes(dana.id)]).toEqual([[], undefined, 0]);
    expect(await store.passkeys.listPasskeys(bob.id)).toEqual(bobsBefore);
    expect(await store.authenticatorApp.deleteFactors(dana.id, NOTHING, NOW)).toEqual({ passkeys: 0, totp: false, endedSessions: 0 });
    expect(await store.authenticatorApp.savePendingTotp(dana.id, 'jwe-5', NOW + 9)).toBe(true);
    expect(await store.authenticatorApp.deleteFactors(dana.id, NOTHING, NOW)).toEqual({ passkeys: 0, totp: true, endedSessions: 0 });
    // Nothing for a user that does not exist; everything goes with the user.
    expect(await store.authenticatorApp.savePendingTotp(999_999, 'jwe-x', NOW)).toBe(false);
    expect(await store.users.deleteUser(dana.id, NOW + 10)).toBeDefined();
    expect(await store.authenticatorApp.getTotp(dana.id)).toBeUndefined();
    expect(await store.authenticatorApp.countRecoveryCodes(dana.id)).toBe(0);
    expect(await store.authenticatorApp.useRecoveryCode(dana.id, hash('g'), NOW + 11)).toBe(false);
  });

  it('moderates: suspension with sessions, tokens and codes ended in one step, lifted once; bio hidden once; levels; reports one open per pair; the record outlives accounts', async () => {
    const mod = await store.users.createUser({ name: 'mo_mod', email: 'mo.mod@example.com', passwordHash: 'h' }, NOW);
    const tgt = await store.users.createUser({ name: 'mo_Target', email: 'mo.target@example.com', passwordHash: 'h' }, NOW);
    const rep = await store.users.createUser({ name: 'mo_rep', email: 'mo.rep@example.com', passwordHash: 'h' }, NOW);
    const ref = (u: UserRecord) => ({ id: u.id, name: u.name });
    const action = (kind: NewModerationAction['action'], over: Partial<NewModerationAction> = {}): NewModerationAction => ({
      moderator: ref(mod), target: ref(tgt), action: kind, reason: null, until: null, modLevel: null, reportId: null, outcome: null, game: null, createdAt: NOW + 100, ...over,
    });
    // The target's session, a live token, an expired one, a used code and an unused one; bob's stay.
    await store.sessions.setSession(hash('m'), '{}', NOW + 100_000, tgt.id);
    await store.sessions.setSession(hash('n'), '{}', NOW + 100_000, bob.id);
    const app = { clientId: 'app-g' };
    await store.apps.createCode(code('S', { userId: tgt.id, ...app }));
    expect(await store.apps.redeemCode(hash('S'), NOW + 1, token('S', hash('S'), { userId: tgt.id, ...app }))).toEqual(REDEEMED);
    await store.apps.createCode(code('T', { userId: tgt.id, ...app }));
    await store.apps.createCode(code('U', { userId: bob.id, ...app }));
    expect(await store.apps.redeemCode(hash('U'), NOW + 1, token('U', hash('U'), { userId: bob.id, ...app }))).toEqual(REDEEMED);

    const suspension = { reason: 'Spam', since: NOW + 100, until: NOW + 10_000 };
    expect(await store.moderation.suspendUser(tgt.id, suspension, action('suspend', { reason: 'Spam', until: NOW + 10_000 }), SECURITY_EVENTS.suspended)).toBe(true);
    expect(await store.moderation.suspendUser(999_999, suspension, action('suspend'), SECURITY_EVENTS.suspended)).toBe(false);
    expect((await store.users.getUser(tgt.id))!.suspension).toEqual(suspension);
    // The target's session is signed out, keeping only whose it was (its next page says why).
    expect(await store.sessions.getSession(hash('m'), NOW)).toBe(JSON.stringify({ suspendedUserId: tgt.id }));
    expect(await store.sessions.listUserSessions(tgt.id, NOW)).toEqual([]);
    expect(await store.sessions.getSession(hash('n'), NOW)).toBe('{}');
    expect((await store.apps.getTokenWithUser(hash('S')))!.token.revokedAt).toBe(NOW + 100);
    expect((await store.apps.getTokenWithUser(hash('U')))!.token.revokedAt).toBeNull();
    expect(await store.apps.getCode(hash('T'))).toBeUndefined();
    expect(await store.apps.getCode(hash('S'))).toBeDefined();
    // Over at its end: nothing to lift then; in force, lifted once.
    expect(await store.moderation.liftSuspension(tgt.id, NOW + 10_000, action('lift_suspension'))).toBe(false);
    expect(await store.moderation.liftSuspension(tgt.id, NOW + 200, action('lift_suspension', { createdAt: NOW + 200 }))).toBe(true);
    expect(await store.moderation.liftSuspension(tgt.id, NOW + 200, action('lift_suspension'))).toBe(false);
    expect((await store.users.getUser(tgt.id))!.suspension).toBeNull();

    expect(await store.moderation.hideBio(tgt.id, action('hide_bio', { reason: 'Rude' }))).toBe(false);
    await store.users.updateUser(tgt.id, { bio: 'rude words' });
    expect(await store.moderation.hideBio(tgt.id, action('hide_bio', { reason: 'Rude', createdAt: NOW + 300 }))).toBe(true);
    expect(await store.users.getUser(tgt.id)).toMatchObject({ bio: '', bioRemoved: { reason: 'Rude', removedAt: NOW + 300 } });
    await store.users.updateUser(tgt.id, { bio: 'better' });
    expect(await store.users.getUser(tgt.id)).toMatchObject({ bio: 'better', bioRemoved: null });

    expect(await store.moderation.setModLevel(tgt.id, 1, action('set_mod_level', { moderator: null, modLevel: 1, createdAt: NOW + 400 }))).toBe(true);
    expect(await store.moderation.setModLevel(999_999, 1, action('set_mod_level'))).toBe(false);
    expect((await store.users.getUser(tgt.id))!.modLevel).toBe(1);
    const picture = await store.moderation.addModerationAction(action('remove_picture', { reason: 'Gore', createdAt: NOW + 500 }));
    expect(picture).toEqual({ id: picture.id, ...action('remove_picture', { reason: 'Gore', createdAt: NOW + 500 }) });
    // A game removed: gone with its action recorded, in one step; the record keeps the game by id and title.
    const rude = await store.games.createGame({ authorId: tgt.id, title: 'Rude', url: 'https://rude.example/', createdAt: NOW });
    const removal = action('remove_game', { reason: 'Slurs', game: { id: rude.id, title: 'Rude' }, createdAt: NOW + 550 });
    expect(await store.moderation.removeGame(rude.id, removal)).toBe(true);
    expect(await store.games.getGame(rude.id)).toBeUndefined();
    expect(await store.moderation.removeGame(rude.id, removal)).toBe(false);
    expect(await store.moderation.removeGame(2 ** 31, removal)).toBe(false);

    // Reports: one open per reporter and target; names joined; the open ones oldest first.
    const first = await store.moderation.createReport({ reporterId: rep.id, targetId: tgt.id, reason: 'spam', text: null, createdAt: NOW + 600 });
    expect(first).toEqual({ id: first.id, reporter: ref(rep), target: ref(tgt), reason: 'spam', text: null, createdAt: NOW + 600, closedAt: null, closedBy: null, outcome: null });
    await expect(store.moderation.createReport({ reporterId: rep.id, targetId: tgt.id, reason: 'hate', text: 'x', createdAt: NOW + 601 })).rejects.toMatchObject({ field: 'report' });
    const onRep = await store.moderation.createReport({ reporterId: tgt.id, targetId: rep.id, reason: 'other', text: 'why', createdAt: NOW + 599 });
    expect((await store.moderation.listOpenReports()).map((r) => r.id)).toEqual([onRep.id, first.id]);
    expect(await store.moderation.listOpenReports(tgt.id)).toEqual([first]);
    expect(await store.moderation.getReport(999_999)).toBeUndefined();
    const close = action('close_report', { reportId: first.id, outcome: 'no_action', createdAt: NOW + 700 });
    expect(await store.moderation.closeReport(first.id, mod.id, 'no_action', close)).toBe(true);
    expect(await store.moderation.closeReport(first.id, mod.id, 'suspended', close)).toBe(false);
    expect(await store.moderation.getReport(first.id)).toEqual({ ...first, closedAt: NOW + 700, closedBy: ref(mod), outcome: 'no_action' });
    expect(await store.moderation.listOpenReports(tgt.id)).toEqual([]);
    // Closed, it no longer blocks a new one.
    const again = await store.moderation.createReport({ reporterId: rep.id, targetId: tgt.id, reason: 'hate', text: 'again', createdAt: NOW + 800 });

    // Search: a prefix in any case, `_` a plain character; or an id; with open reports and suspension.
    await store.moderation.suspendUser(rep.id, { reason: 'r', since: NOW, until: null }, action('suspend', { target: ref(rep) }), SECURITY_EVENTS.suspended);
    expect(await store.moderation.findUsers({ prefix: 'MO_' }, NOW, 20)).toEqual([
      { id: mod.id, name: 'mo_mod', modLevel: 0, suspended: false, openReports: 0 },
      { id: rep.id, name: 'mo_rep', modLevel: 0, suspended: true, openReports: 1 },
      { id: tgt.id, name: 'mo_Target', modLevel: 1, suspended: false, openReports: 1 },
    ]);
    expect(await store.moderation.findUsers({ prefix: 'mo%' }, NOW, 20)).toEqual([]);
    expect(await store.moderation.findUsers({ prefix: 'mo_' }, NOW, 1)).toHaveLength(1);
    expect(await store.moderation.findUsers({ id: tgt.id }, NOW, 20)).toEqual([{ id: tgt.id, name: 'mo_Target', modLevel: 1, suspended: false, openReports: 1 }]);

    const onTarget = await store.moderation.listModerationActions({ targetId: tgt.id });
    expect(onTarget.map((a) => a.action)).toEqual(['close_report', 'remove_game', 'remove_picture', 'set_mod_level', 'hide_bio', 'lift_suspension', 'suspend']);
    expect(onTarget[1]).toEqual({ id: onTarget[1]!.id, ...removal });
    expect(onTarget[2]!.game).toBeNull();
    expect(onTarget[3]!.moderator).toBeNull();
    expect(await store.moderation.listModerationActions({ limit: 2 })).toEqual([(await store.moderation.listModerationActions({ targetId: rep.id }))[0], onTarget[0]]);

    // Deleting the target takes every report by and on them, and leaves the record.
    await store.users.deleteUser(tgt.id, NOW + 900);
    expect(await store.moderation.getReport(again.id)).toBeUndefined();
    expect(await store.moderation.getReport(onRep.id)).toBeUndefined();
    expect(await store.moderation.listModerationActions({ targetId: tgt.id })).toEqual(onTarget);
    await store.users.deleteUser(mod.id, NOW + 900);
    await store.users.deleteUser(rep.id, NOW + 900);
  });

  it('answers every lookup by a key no row can hold (NUL in a string, an id beyond 32 bits or not whole) as not found, and no query fails', async () => {
    const seen: string[] = [];
    store.onDatabaseError((kind) => seen.push(kind));
    const nul = `${'n'.repeat(63)}\u0000`;
    const far = 2 ** 31;
    try {
      expect(await store.users.getUser(far)).toBeUndefined();
      expect(await store.users.getUser(1.5)).toBeUndefined();
      expect(await store.users.getPublicUser(far)).toBeUndefined();
      expect(await store.users.getUserByName(nul)).toBeUndefined();
      expect(await store.users.getUserByEmail(nul)).toBeUndefined();
      expect(await store.users.updateUser(far, { bio: 'x' })).toBeUndefined();
      expect(await store.users.recordHeartbeat(far, 0, NOW, 1)).toBeUndefined();
      expect(await store.users.swapPfpTimestamp(far, null, NOW)).toBe(false);
      expect(await store.securityEvents.recordSecurityEvent({ userId: far }, NOTHING, NOW, { passwordHash: 'h' })).toBeUndefined();
      expect(await store.users.deleteUser(far, NOW)).toBeUndefined();

      expect(await store.apps.getApp(nul)).toBeUndefined();
      expect(await store.apps.listAppsByOwner(far)).toEqual([]);
      expect(await store.apps.setAppSecret(nul, 'h')).toBe(false);
      expect(await store.apps.updateApp(nul, { name: 'x' })).toBe(false);
      expect(await store.apps.updateApp(nul, {})).toBe(false);
      expect(await store.apps.deleteApp(nul)).toBe(false);
      expect(await store.apps.getCode(nul)).toBeUndefined();
      expect(await store.apps.redeemCode(nul, NOW, token('n', nul))).toEqual({ outcome: 'replayed', revokedTokens: 0 });
      expect(await store.apps.revokeTokensOfCode(nul, NOW)).toBe(0);
      expect(await store.apps.getTokenWithUser(nul)).toBeUndefined();
      expect(await store.apps.revokeToken(nul, 'app-a', NOW)).toBe(false);
      expect(await store.apps.revokeToken(hash('t'), nul, NOW)).toBe(false);

      expect(await store.deviceAuthorizations.getDeviceAuthorizationByUserCode(nul)).toBeUndefined();
      expect(await store.deviceAuthorizations.decideDeviceAuthorization(nul, NOW, alice.id, null)).toBe(false);
      expect(await store.deviceAuthorizations.decideDeviceAuthorization(key('user', 12), NOW, far, null)).toBe(false);
      expect(await store.deviceAuthorizations.decideDeviceAuthorization(key('user', 12), NOW, 1.5, null)).toBe(false);
      expect(await store.deviceAuthorizations.pollDeviceAuthorization(nul, NOW)).toEqual({ outcome: 'unknown' });
      expect(await store.deviceAuthorizations.redeemDeviceAuthorization(nul, NOW, token('n', null), null)).toBe(false);

      expect(await store.games.getGame(far)).toBeUndefined();
      expect(await store.games.listGamesByAuthor(far)).toEqual([]);
      expect(await store.games.updateGame(far, { title: 'x' })).toBe(false);
      expect(await store.games.deleteGame(far)).toBe(false);
      expect(await store.games.deleteGame(1.5)).toBe(false);

      expect(await store.grants.getGrant(far, 'app-a')).toBeUndefined();
      expect(await store.grants.getGrant(alice.id, nul)).toBeUndefined();
      await expect(store.grants.touchGrant(far, nul, NOW)).resolves.toBeUndefined();
      expect(await store.grants.listGrants(far)).toEqual([]);
      expect(await store.grants.revokeGrant(far, 'app-a', NOW, SECURITY_EVENTS.grant_revoked)).toBe(false);

      expect(await store.sessions.getSession(nul, NOW)).toBeUndefined();
      expect(await store.sessions.listUserSessions(far, NOW)).toEqual([]);
      expect(await store.sessions.deleteUserSession(far, 'pub-a')).toBe(false);
      await expect(store.sessions.deleteSession(nul)).resolves.toBeUndefined();
      expect(await store.securityEvents.recordSecurityEvent({ userId: far }, SECURITY_EVENTS.password_reset, NOW)).toBeUndefined();
      // An id hash no session can have excepts none (this user has no sessions).
      expect(await store.securityEvents.recordSecurityEvent({ userId: 999_999, keepSessionIdHash: nul }, SECURITY_EVENTS.password_changed, NOW)).toBeUndefined();

      expect(await store.emailLinks.getEmailLink(nul)).toBeUndefined();
      await expect(store.emailLinks.deleteEmailLink(nul)).resolves.toBeUndefined();
      expect(await store.emailLinks.redeemEmailLink(nul, NOW, { passwordHash: 'x' }, ['reset'], NOTHING)).toBeUndefined();

      expect(await store.signIns.listSignIns(far, 10)).toEqual([]);
      await expect(store.signIns.recordSignIn(far, { at: NOW, ip: '10.0.0.1', userAgent: 'x', upstream: null }, 3)).resolves.toBeUndefined();

      expect(await store.upstreamIdentities.findUpstreamIdentity(nul, 'subject')).toBeUndefined();
      expect(await store.upstreamIdentities.findUpstreamIdentity('github', nul)).toBeUndefined();
      expect(await store.upstreamIdentities.listUpstreamIdentities(far)).toEqual([]);
      await expect(store.upstreamIdentities.touchUpstreamIdentity(far, NOW)).resolves.toBeUndefined();
      expect(await store.upstreamIdentities.unlinkUpstreamIdentity(far, 1, SECURITY_EVENTS.upstream_unlinked, NOW)).toBe('missing');
      expect(await store.upstreamIdentities.unlinkUpstreamIdentity(alice.id, far, SECURITY_EVENTS.upstream_unlinked, NOW)).toBe('missing');
      expect(await store.upstreamIdentities.unlinkUpstreamIdentity(alice.id, 1.5, SECURITY_EVENTS.upstream_unlinked, NOW)).toBe('missing');

      expect(await store.passkeys.listPasskeys(far)).toEqual([]);
      expect(await store.passkeys.getPasskeyByCredentialId(nul)).toBeUndefined();
      expect(await store.passkeys.renamePasskey(far, 1, 'x')).toBeUndefined();
      expect(await store.passkeys.renamePasskey(alice.id, far, 'x')).toBeUndefined();
      expect(await store.passkeys.deletePasskey(far, 1, SECURITY_EVENTS.passkey_removed, NOW)).toBe('missing');
      expect(await store.passkeys.deletePasskey(alice.id, 1.5, SECURITY_EVENTS.passkey_removed, NOW)).toBe('missing');
      expect(await store.passkeys.recordPasskeyUse(far, { counter: 1, deviceType: 'singleDevice', backedUp: false }, NOW)).toBe(false);
      expect(await store.authenticatorApp.getTotp(far)).toBeUndefined();
      expect(await store.authenticatorApp.savePendingTotp(far, 'jwe', NOW)).toBe(false);
      expect(await store.authenticatorApp.confirmTotp(far, 'jwe', 1, NOW, [], NOTHING)).toBeUndefined();
      expect(await store.authenticatorApp.confirmTotp(alice.id, nul, 1, NOW, [], NOTHING)).toBeUndefined();
      expect(await store.authenticatorApp.useTotpStep(far, 1)).toBe(false);
      expect(await store.authenticatorApp.deleteTotp(far, NOTHING, NOW)).toBe(false);
      await expect(store.authenticatorApp.replaceRecoveryCodes(far, [hash('r')], NOW)).resolves.toBeUndefined();
      expect(await store.authenticatorApp.useRecoveryCode(far, hash('r'), NOW)).toBe(false);
      expect(await store.authenticatorApp.useRecoveryCode(alice.id, nul, NOW)).toBe(false);
      expect(await store.authenticatorApp.countRecoveryCodes(far)).toBe(0);
      expect(await store.authenticatorApp.listRecoveryCodeHashes(far)).toEqual([]);
      expect(await store.authenticatorApp.rewriteRecoveryCodeHash(far, hash('r'), 'x')).toBe(false);
      expect(await store.authenticatorApp.rewriteRecoveryCodeHash(alice.id, nul, 'x')).toBe(false);
      expect(await store.authenticatorApp.deleteFactors(far, NOTHING, NOW)).toEqual({ passkeys: 0, totp: false, endedSessions: 0 });
      expect(seen).toEqual([]);
    } finally {
      store.onDatabaseError(() => undefined);
    }
  });

  it('stores picture rows: all sizes at once or none, swept when no current pfpTimestamp names them, gone with their user', async () => {
    const pic = await store.users.createUser({ name: 'pic', email: 'pic@example.com', passwordHash: 'h' }, NOW);
    const images = { large: Buffer.from('L'), medium: Buffer.from('M'), small: Buffer.from('S') };
    expect(await store.pictures.insertPictures(pic.id, 10, images, NOW)).toBe(true);
    // The same timestamp again (another writer): nothing written.
    expect(await store.pictures.insertPictures(pic.id, 10, { large: Buffer.from('X'), medium: Buffer.from('Y'), small: Buffer.from('Z') }, NOW)).toBe(false);
    expect(await store.pictures.getPicture(pic.id, 10, 'medium')).toEqual(Buffer.from('M'));
    expect(await store.pictures.getPicture(pic.id, 11, 'medium')).toBeUndefined();
    expect(await store.pictures.getPicture(-1, 10, 'medium')).toBeUndefined();
    expect(await store.pictures.insertPictures(pic.id, 20, images, NOW + 100)).toBe(true);
    expect(await store.users.swapPfpTimestamp(pic.id, null, 10)).toBe(true);
    // ts 20 is nobody's current picture but younger than the cutoff; ts 10 is current.
    expect(await store.pictures.sweepPictures(NOW + 100)).toBe(0);
    expect(await store.pictures.usersWithoutPictureRows()).toEqual([]);
    expect(await store.pictures.sweepPictures(NOW + 101)).toBe(3);
    expect(await store.pictures.getPicture(pic.id, 20, 'large')).toBeUndefined();
    expect(await store.users.swapPfpTimestamp(pic.id, 10, 30)).toBe(true);
    expect(await store.pictures.usersWithoutPictureRows()).toEqual([{ id: pic.id, pfpTimestamp: 30 }]);
    await store.pictures.deletePictures(pic.id, 10);
    expect(await store.pictures.getPicture(pic.id, 10, 'large')).toBeUndefined();
    expect(await store.pictures.insertPictures(pic.id, 30, images, NOW)).toBe(true);
    expect(await store.pictures.usersWithoutPictureRows()).toEqual([]);
    await store.users.deleteUser(pic.id, NOW);
    expect(await store.pictures.getPicture(pic.id, 30, 'large')).toBeUndefined();
  });

  it('tells its database-error listener of a failed statement (not of a taken name) and still throws it', async () => {
    const seen: string[] = [];
    store.onDatabaseError((kind) => seen.push(kind));
    try {
      // A game by a user who does not exist breaks a foreign key: a bug's error, not an outage.
      await expect(store.games.createGame({ authorId: 999_999, title: 'Orphan', url: 'https://g.example/', createdAt: NOW })).rejects.toThrow();
      await expect(store.users.createUser({ name: 'BOB', email: 'bob2@example.com', passwordHash: 'h' }, NOW)).rejects.toBeInstanceOf(UniqueViolation);
      expect(seen).toEqual(['other']);
    } finally {
      store.onDatabaseError(() => undefined);
    }
  });

  it('closes: a closed store answers nothing', async () => {
    await store.close();
    closed = true;
    await expect(store.ping()).rejects.toThrow();
  });

  it('called every method of every aggregate, and of the lifecycle, on this database', () => {
    const every = [...LIFECYCLE, ...Object.entries(EVERY_METHOD).flatMap(([aggregate, methods]) => Object.keys(methods).map((m) => `${aggregate}.${m}`))];
    expect(every.filter((m) => !calls.has(m))).toEqual([]);
    expect([...calls].filter((m) => !every.includes(m))).toEqual([]);
    expect(Object.keys(EVERY_METHOD).sort()).toEqual([...AGGREGATE_NAMES].sort());
    for (const [aggregate, methods] of Object.entries(EVERY_METHOD)) {
      for (const m of Object.keys(methods)) expect(typeof (opened[aggregate as keyof Aggregates] as unknown as Record<string, unknown>)[m], `${aggregate}.${m}`).toBe('function');
    }
  });
});
