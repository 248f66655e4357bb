/**
 * SqliteStore's writes of the token exchange and revocation: prepared statements on knex's writer
 * connection, committed in groups (src/store/apps/sqlite.ts, src/store/sqlite-connections.ts). SQLite only: PostgreSQL takes knex's
 * path, which the store suite covers on both databases.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WRITER_AUTOCHECKPOINT_PAGES } from '../../src/store/checkpointer.js';
import type { KnexStore } from '../../src/store/knex-store.js';
import { openStoreAt } from '../../src/store/open.js';
import { REDEEMED, type CodeRecord, type Redemption, type TokenRecord } from '../../src/domain/apps.js';
import { tempDir } from '../helpers.js';

const NOW = 1_800_000_000_000;
const hash = (c: string): string => c.repeat(64);
let store: KnexStore;
let userId: number;

const code = (c: string): CodeRecord => ({
  codeHash: hash(c),
  clientId: 'app',
  userId,
  scopes: ['userinfo'],
  redirectUri: null,
  codeChallenge: null,
  nonce: null,
  authTime: NOW,
  amr: null,
  expiresAt: NOW + 300_000,
  usedAt: null,
  createdAt: NOW,
});
const token = (t: string, codeHash: string | null): TokenRecord => ({
  tokenHash: hash(t),
  clientId: 'app',
  userId,
  scopes: ['userinfo'],
  codeHash,
  expiresAt: NOW + 600_000,
  revokedAt: null,
  createdAt: NOW,
});

beforeAll(async () => {
  store = openStoreAt(path.join(tempDir('idp-group-'), 'db.sqlite'));
  await store.migrate();
  userId = (await store.users.createUser({ name: 'grouped', email: 'g@example.com', passwordHash: 'h' }, NOW)).id;
  await store.apps.createApp({ clientId: 'app', secretHash: hash('s'), public: false, ownerId: userId, name: 'App', redirectUris: ['https://a.example/cb'], postLogoutRedirectUris: [], grantTypes: ['authorization_code'], createdAt: NOW });
});
afterAll(async () => store.close());

describe('SQLite: the exchange and revocation writes, committed in groups', () => {
  it('100 redemptions of one code asked for in the same turn: exactly one wins, and only its token exists', async () => {
    await store.apps.createCode(code('a'));
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => store.apps.redeemCode(hash('a'), NOW, token(`t${i}`.padEnd(2, '_'), hash('a')))));
    expect(results.filter((r) => r.outcome === 'redeemed')).toHaveLength(1);
    expect(results.filter((r) => r.outcome === 'replayed')).toHaveLength(99);
    const tokens = await store.knex('access_tokens').where({ code_hash: hash('a') });
    expect(tokens).toHaveLength(1);
    expect((await store.apps.getCode(hash('a')))?.usedAt).toBe(NOW);
  });

  it('a write that fails in a group fails alone: the others of the same group commit', async () => {
    await store.apps.createCode(code('b'));
    await store.apps.createCode(code('c'));
    await store.apps.createCode(code('d'));
    const [first, duplicate, third] = await Promise.allSettled([
      store.apps.redeemCode(hash('b'), NOW, token('x', hash('b'))),
      // The same token hash again: the insert breaks the primary key, so this redemption fails
      // and its claim of code c is rolled back with it.
      store.apps.redeemCode(hash('c'), NOW, token('x', hash('c'))),
      store.apps.redeemCode(hash('d'), NOW, token('y', hash('d'))),
    ]);
    expect(first).toEqual({ status: 'fulfilled', value: REDEEMED });
    expect(duplicate.status).toBe('rejected');
    expect(third).toEqual({ status: 'fulfilled', value: REDEEMED });
    expect((await store.apps.getCode(hash('c')))?.usedAt).toBeNull();
    expect(await store.knex('access_tokens').where({ token_hash: hash('y') }).first('code_hash')).toEqual({ code_hash: hash('d') });
  });

  it('a redemption asked for while a knex transaction is open on the writer is not part of it: it commits when that transaction rolls back', async () => {
    await store.apps.createCode(code('e'));
    let redemption: Promise<Redemption> | undefined;
    await expect(
      store.knex.transaction(async (trx) => {
        await trx('users').where({ id: userId }).update({ bio: 'inside' });
        redemption = store.apps.redeemCode(hash('e'), NOW, token('z', hash('e')));
        await new Promise((resolve) => setTimeout(resolve, 20));
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await redemption).toEqual(REDEEMED);
    expect((await store.users.getUser(userId))?.bio).toBe('');
    expect((await store.apps.getCode(hash('e')))?.usedAt).toBe(NOW);
    expect(await store.apps.getTokenWithUser(hash('z'))).toBeDefined();
  });

  it('revocations in one group: each answers for its own token, a second revocation of the same token is false', async () => {
    const [one, again, other] = await Promise.all([
      store.apps.revokeToken(hash('y'), 'app', NOW + 1),
      store.apps.revokeToken(hash('y'), 'app', NOW + 2),
      store.apps.revokeToken(hash('x'), 'other-app', NOW + 1),
    ]);
    expect([one, again, other]).toEqual([true, false, false]);
    expect((await store.apps.getTokenWithUser(hash('y')))?.token.revokedAt).toBe(NOW + 1);
    expect(await store.apps.revokeTokensOfCode(hash('b'), NOW + 3)).toBe(1);
  });

  it('raises the writer\'s own checkpoint mark once the checkpoint thread runs', async () => {
    await store.apps.createCode(code('m'));
    expect(await store.apps.redeemCode(hash('m'), NOW, token('m', hash('m')))).toEqual(REDEEMED);
    const client = (store.knex as unknown as { client: { acquireConnection(): Promise<{ pragma(s: string, o: { simple: true }): unknown }>; releaseConnection(c: unknown): Promise<unknown> } }).client;
    const db = await client.acquireConnection();
    try {
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(WRITER_AUTOCHECKPOINT_PAGES);
    } finally {
      await client.releaseConnection(db);
    }
  });
});
