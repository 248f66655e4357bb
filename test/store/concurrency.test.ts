/**
 * Races on one database (SQLite here; PostgreSQL in the test:pg run) and two service instances
 * sharing one database, as a multi-instance deployment runs: on SQLite also one picture directory,
 * on PostgreSQL nothing else (each its own directory; the pictures are in the database).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.js';
import { httpErrorOf } from '../../src/http/error-responses.js';
import { storeLimits } from '../../src/security/rate-limit.js';
import {
  Agent,
  fixturesDir,
  freshDatabase,
  makeClient,
  makeCode,
  makeUser,
  oauthErrorBody,
  startServer,
  tempDir,
  tokenRequest,
  TEST_DATABASE,
  type TestDatabase,
  type TestServer,
} from '../helpers.js';

const USED = 'Authorization code has already been used; tokens issued from it are revoked';

describe(`100 concurrent redemptions of one code (${TEST_DATABASE})`, () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer();
  });
  afterAll(async () => t?.close());

  it('exactly one is 200 and stores one token; the other 99 are 400 replays', async () => {
    const user = await makeUser(t);
    const client = await makeClient(t, user.id);
    const code = await makeCode(t, { userId: user.id, clientId: client.clientId });
    const params = { grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: client.clientSecret };
    const responses = await Promise.all(Array.from({ length: 100 }, () => tokenRequest(t, params)));
    const results = await Promise.all(responses.map(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> })));
    const winners = results.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    expect(winners[0]!.body).toEqual({ access_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), token_type: 'Bearer', expires_in: 600 });
    const losers = results.filter((r) => r.status !== 200);
    expect(losers).toHaveLength(99);
    for (const loser of losers) expect(loser).toEqual({ status: 400, body: oauthErrorBody('invalid_grant', USED) });
    const tokens = (await t.store.knex('access_tokens').where({ client_id: client.clientId })) as unknown[];
    expect(tokens).toHaveLength(1);
  });
});

describe(`two service instances on one database (${TEST_DATABASE})`, () => {
  let dir: string;
  let db: TestDatabase;
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    dir = tempDir('idp-two-');
    db = await freshDatabase(dir);
    // One deployment: one database, one session key, and on SQLite one shared picture directory.
    const env = { DATABASE_URL: db.url, SESSION_SECRET: 's'.repeat(40) };
    const shared = TEST_DATABASE === 'sqlite' ? { PICTURES_DIR: path.join(dir, 'pictures') } : {};
    a = await startServer({ ...env, ...shared });
    b = await startServer({ ...env, ...shared });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await db?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a code issued through one is redeemed through the other exactly once', async () => {
    const user = await makeUser(a);
    const client = await makeClient(a, user.id);
    const code = await makeCode(a, { userId: user.id, clientId: client.clientId });
    const params = { grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: client.clientSecret };
    const [fromA, fromB] = await Promise.all([tokenRequest(a, params), tokenRequest(b, params)]);
    expect([fromA.status, fromB.status].sort()).toEqual([200, 400]);
    const again = await tokenRequest(b, params);
    expect([again.status, await again.json()]).toEqual([400, oauthErrorBody('invalid_grant', USED)]);
  });

  it('a token issued by one works on the other', async () => {
    const user = await makeUser(a);
    const client = await makeClient(a, user.id);
    const code = await makeCode(a, { userId: user.id, clientId: client.clientId });
    const res = await tokenRequest(a, { grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: client.clientSecret });
    expect(res.status).toBe(200);
    const { access_token } = (await res.json()) as { access_token: string };
    const whois = await fetch(`${b.baseUrl}/api/oauth/whois`, { headers: { Authorization: `Bearer ${access_token}` } });
    expect([whois.status, await whois.json()]).toEqual([200, { id: user.id, name: user.name }]);
  });

  it('a picture changed through one is served and reported by the other; the old one is gone on both', async () => {
    const user = await makeUser(a);
    const onA = new Agent(a);
    await onA.signIn(user);
    const upload = async (file: string) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(fs.readFileSync(path.join(fixturesDir, file)))]), file);
      const res = await onA.fetch('/api/account/picture', { method: 'PUT', body: form, headers: { 'X-CSRF-Token': await onA.csrf() } });
      expect(res.status).toBe(200);
      return ((await res.json()) as { user: { pfpTimestamp: number } }).user.pfpTimestamp;
    };
    const first = await upload('photo.jpg');
    // B serves it (and caches its bytes) ...
    expect((await fetch(`${b.baseUrl}/pfp/medium/${user.id}-${first}.webp`)).status).toBe(200);
    const second = await upload('transparent.png');
    expect(second).toBeGreaterThan(first);
    const info = await fetch(`${b.baseUrl}/api/users/info?id=${user.id}`);
    expect(((await info.json()) as { user: { pfpTimestamp: number } }).user.pfpTimestamp).toBe(second);
    for (const t of [a, b]) {
      expect((await fetch(`${t.baseUrl}/pfp/medium/${user.id}-${second}.webp`)).status).toBe(200);
      // ... and never serves the replaced one again, cache or not.
      expect((await fetch(`${t.baseUrl}/pfp/medium/${user.id}-${first}.webp`)).status).toBe(404);
    }
  });

  it('a session made on one instance is valid on the other', async () => {
    const user = await makeUser(a);
    const onA = new Agent(a);
    await onA.signIn(user);
    const onB = new Agent(b);
    for (const [k, v] of onA.cookies) onB.cookies.set(k, v);
    const res = await onB.fetch('/api/account');
    expect(res.status).toBe(200);
    expect(((await res.json()) as { user: { id: number } }).user.id).toBe(user.id);
  });

  it('rate limits count across instances: 3 allowed in all, the 4th is 429 on either', async () => {
    const rule = { signUpIp: { points: 3, seconds: 60 } };
    const [onA, onB] = [storeLimits(a.store, rule), storeLimits(b.store, rule)];
    const key = `198.51.100.${process.pid % 250}`;
    await onA.signUpIp.consume(key);
    await onB.signUpIp.consume(key);
    await onA.signUpIp.consume(key);
    for (const limits of [onB, onA]) {
      const err = await limits.signUpIp.consume(key).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DomainError);
      expect(httpErrorOf(err)?.status).toBe(429);
      expect((err as DomainError).message).toMatch(/^Too many attempts, retry in \d+ seconds$/);
    }
    await onB.signUpIp.reset(key);
    await expect(onA.signUpIp.consume(key)).resolves.toBeUndefined();
  });
});
