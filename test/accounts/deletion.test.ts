/**
 * Account deletion by the user (deleteAccount) and by an operator (`user delete`): the user and
 * everything hanging off them go; the id is never reused and the name stays taken.
 */
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/admin.js';
import { setPicture } from '../../src/pictures/pictures.js';
import { Agent, fixturesDir, makeClient, makeUser, signedInAgent, startServer, storedPictures, TEST_DATABASE, TEST_PASSWORD, tokenRequest, type TestServer } from '../helpers.js';
import { NOTHING } from '../../src/domain/security-events.js';
import type { Aggregates } from '../../src/store/types.js';

let t: TestServer;
beforeAll(async () => {
  t = await startServer({}, { limits: { signInIp: { points: 1000, seconds: 600 } } });
});
afterAll(async () => t?.close());

const CALLBACK = 'https://client.example/callback';

/** A user with a picture, an app and a game of their own, a grant to someone else's app, and tokens both ways. */
async function populatedUser() {
  const { agent, user } = await signedInAgent(t);
  const pfp = await setPicture({ store: t.store, pictures: t.app.deps.pictures, now: t.clock.now }, user.id, fs.readFileSync(path.join(fixturesDir, 'photo.jpg')));
  const ownApp = await makeClient(t, user.id, [CALLBACK]);
  const game = await t.store.games.createGame({ authorId: user.id, title: 'Mine', url: 'https://game.example/', createdAt: t.clock.now() });
  const otherOwner = await makeUser(t);
  const otherApp = await makeClient(t, otherOwner.id, [CALLBACK]);
  const consent = async (clientId: string) => {
    const res = await agent.form('/oauth', { decision: 'authorize', client_id: clientId, redirect_uri: CALLBACK, scope: 'userinfo' });
    return new URL(res.headers.get('location')!).searchParams.get('code')!;
  };
  const exchange = async (client: { clientId: string; clientSecret: string }, code: string) => {
    const res = await tokenRequest(t, { grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: client.clientSecret });
    return ((await res.json()) as { access_token: string }).access_token;
  };
  const tokenAtOtherApp = await exchange(otherApp, await consent(otherApp.clientId));
  // Another person uses the deleted user's app: their token goes with the app.
  const fan = await signedInAgent(t);
  const fanCode = new URL(
    (await fan.agent.form('/oauth', { decision: 'authorize', client_id: ownApp.clientId, redirect_uri: CALLBACK, scope: 'userinfo' })).headers.get('location')!,
  ).searchParams.get('code')!;
  const fanToken = await exchange(ownApp, fanCode);
  const pendingCode = await consent(otherApp.clientId);
  // Factors: a passkey, an authenticator app and its recovery codes.
  await t.store.passkeys.createPasskey({ userId: user.id, credentialId: `credential-of-${user.id}`, publicKey: 'key', counter: 0, transports: [], deviceType: 'singleDevice', backedUp: false, name: 'Phone', createdAt: t.clock.now() });
  await t.store.authenticatorApp.savePendingTotp(user.id, 'sealed-seed', t.clock.now());
  await t.store.authenticatorApp.confirmTotp(user.id, 'sealed-seed', 1, t.clock.now(), ['recovery-code-hash'], NOTHING);
  // An account at an upstream identity provider, linked.
  const upstreamSlug = `deletion-${user.id}`;
  await t.store.upstreams.addUpstream({
    slug: upstreamSlug,
    name: `Deletion ${user.id}`,
    kind: 'oidc',
    preset: null,
    issuer: 'https://upstream.example',
    authorizationEndpoint: null,
    tokenEndpoint: null,
    userinfoEndpoint: null,
    claimMapping: null,
    scopes: ['openid', 'email'],
    clientId: 'upstream-client',
    clientSecretSealed: 'sealed',
    enabled: true,
    trustMfa: false,
    createdAt: t.clock.now(),
  });
  await t.store.upstreamIdentities.linkUpstreamIdentity({ userId: user.id, upstreamSlug, subject: `subject-of-${user.id}`, email: user.email, createdAt: t.clock.now() });
  expect(await t.store.upstreamIdentities.listUpstreamIdentities(user.id)).toHaveLength(1);
  // Everything that must disappear answers before the deletion.
  expect((await fetch(`${t.baseUrl}/pfp/small/${user.id}-${pfp}.webp`)).status).toBe(200);
  expect((await fetch(`${t.baseUrl}/api/oauth/whois`, { headers: { Authorization: `Bearer ${fanToken}` } })).status).toBe(200);
  return { agent, user, pfp, ownApp, game, otherApp, tokenAtOtherApp, fan, fanToken, pendingCode, upstreamSlug };
}

async function expectGone(p: Awaited<ReturnType<typeof populatedUser>>) {
  const { user, pfp } = p;
  expect((await fetch(`${t.baseUrl}/api/users/info?id=${user.id}`)).status).toBe(404);
  for (const size of ['large', 'medium', 'small']) {
    expect((await fetch(`${t.baseUrl}/pfp/${size}/${user.id}-${pfp}.webp`)).status).toBe(404);
    expect((await fetch(`${t.baseUrl}/pfp/${size}/${user.id}.webp`)).status).toBe(404);
  }
  expect(await storedPictures(t, user.id)).toEqual([]);
  for (const token of [p.tokenAtOtherApp, p.fanToken]) {
    expect((await fetch(`${t.baseUrl}/api/oauth/whois`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(401);
  }
  const redeem = await tokenRequest(t, { grant_type: 'authorization_code', code: p.pendingCode, client_id: p.otherApp.clientId, client_secret: p.otherApp.clientSecret });
  expect(redeem.status).toBe(400);
  expect(await t.store.apps.getApp(p.ownApp.clientId)).toBeUndefined();
  expect(await t.store.games.getGame(p.game.id)).toBeUndefined();
  expect(await t.store.grants.listGrants(user.id)).toEqual([]);
  expect(await t.store.grants.getGrant(p.fan.user.id, p.ownApp.clientId)).toBeUndefined();
  expect(await t.store.sessions.listUserSessions(user.id, t.clock.now())).toEqual([]);
  const knex = t.store.knex;
  for (const [table, column] of [['access_tokens', 'user_id'], ['auth_codes', 'user_id'], ['grants', 'user_id'], ['sessions', 'user_id'], ['apps', 'owner_id'], ['games', 'author_id'], ['passkeys', 'user_id'], ['totp_factors', 'user_id'], ['recovery_codes', 'user_id'], ['upstream_identities', 'user_id']] as const) {
    expect(await knex(table).where(column, user.id)).toEqual([]);
  }
  // The linked identity is free again; its upstream stays.
  expect(await t.store.upstreamIdentities.findUpstreamIdentity(p.upstreamSlug, `subject-of-${user.id}`)).toBeUndefined();
  expect(await t.store.upstreams.getUpstream(p.upstreamSlug)).toMatchObject({ slug: p.upstreamSlug });
  // The app's other users lost their tokens with it, but not their accounts.
  expect((await p.fan.agent.fetch('/api/account')).status).toBe(200);
  // The other app and its owner are untouched.
  expect(await t.store.apps.getApp(p.otherApp.clientId)).toBeDefined();
}

describe('deleteAccount', () => {
  it('deletes the user and everything of theirs; the session ends', async () => {
    const p = await populatedUser();
    const other = new Agent(t);
    await other.signIn(p.user);
    const res = await p.agent.json('POST', '/api/account/deletion', { password: TEST_PASSWORD, confirm: p.user.name });
    expect(res.status).toBe(204);
    expect(res.headers.getSetCookie().some((c) => c.startsWith('idp.sid=;'))).toBe(true);
    expect((await p.agent.fetch('/api/account')).status).toBe(401);
    expect((await other.fetch('/api/account')).status).toBe(401);
    await expectGone(p);
  });

  it('never gives the id to anyone else, and the name stays taken (the email is free again)', async () => {
    const { agent, user } = await signedInAgent(t);
    expect((await agent.json('POST', '/api/account/deletion', { password: TEST_PASSWORD, confirm: user.name })).status).toBe(204);
    const fresh = new Agent(t);
    const taken = await fresh.form('/signup', { name: user.name.toUpperCase(), email: 'someone-new@example.com', password: 'long enough password' });
    expect(taken.status).toBe(409);
    expect(await taken.text()).toContain('Name is already taken');
    const again = await fresh.form('/signup', { name: `${user.name}_2`.slice(0, 28), email: user.email, password: 'long enough password' });
    expect(again.status).toBe(200);
    expect(await t.store.users.getUserByEmail(user.email)).toMatchObject({ name: `${user.name}_2`.slice(0, 28) });
    const next = await makeUser(t);
    expect(next.id).toBeGreaterThan(user.id);
  });

  it('ids are never reused even when the newest user is deleted (SQLite AUTOINCREMENT, PostgreSQL sequence)', async () => {
    const last = await makeUser(t);
    await t.store.users.deleteUser(last.id, t.clock.now());
    const next = await makeUser(t);
    expect(next.id).toBe(last.id + 1);
    if (TEST_DATABASE === 'sqlite') {
      const [row] = await t.store.knex.raw<{ sql: string }[]>("select sql from sqlite_master where name = 'users'");
      expect(row!.sql.toLowerCase()).toContain('autoincrement');
    }
  });

  it('refuses a wrong password (403) or a confirmation that is not the exact name (400), deleting nothing', async () => {
    const { agent, user } = await signedInAgent(t);
    const wrong = await agent.json('POST', '/api/account/deletion', { password: 'not the password', confirm: user.name });
    expect([wrong.status, await wrong.json()]).toEqual([403, { message: 'The password is wrong' }]);
    for (const confirm of ['', user.name.toUpperCase(), `${user.name} `, 'DELETE']) {
      const res = await agent.json('POST', '/api/account/deletion', { password: TEST_PASSWORD, confirm });
      expect([res.status, await res.json()]).toEqual([400, { message: 'Type your name exactly to confirm' }]);
    }
    expect((await agent.fetch('/api/account')).status).toBe(200);
    expect(await t.store.users.getUser(user.id)).toBeDefined();
  });

  it('needs the CSRF token and a signed-in user', async () => {
    const { agent, user } = await signedInAgent(t);
    const res = await agent.fetch('/api/account/deletion', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ password: TEST_PASSWORD, confirm: user.name }),
    });
    expect(res.status).toBe(403);
    expect(await t.store.users.getUser(user.id)).toBeDefined();
    expect((await new Agent(t).json('POST', '/api/account/deletion', { password: 'x', confirm: 'y' })).status).toBe(401);
  });

  it('is rate-limited like sign-in', async () => {
    const { agent, user } = await signedInAgent(t);
    for (let i = 0; i < 10; i++) {
      expect((await agent.json('POST', '/api/account/deletion', { password: `wrong-${i}-password`, confirm: user.name })).status).toBe(403);
    }
    expect((await agent.json('POST', '/api/account/deletion', { password: TEST_PASSWORD, confirm: user.name })).status).toBe(429);
    expect(await t.store.users.getUser(user.id)).toBeDefined();
  });
});

/**
 * Replaces `target[method]` until restored: its first call runs `hook` just before or just after
 * the real method (later calls go straight through). Returns the restore function.
 */
function interceptOnce(target: object, method: string, when: 'before' | 'after', hook: () => Promise<void>): () => void {
  const object = target as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const original = object[method]!;
  const own = Object.prototype.hasOwnProperty.call(target, method);
  let fired = false;
  object[method] = async function (this: unknown, ...args: unknown[]) {
    if (fired) return original.apply(this, args);
    fired = true;
    if (when === 'before') await hook();
    const result = await original.apply(this, args);
    if (when === 'after') await hook();
    return result;
  };
  return () => {
    if (own) object[method] = original;
    else delete object[method];
  };
}

describe('an account deleted (in another tab) while its own picture change is in flight', () => {
  const photo = fs.readFileSync(path.join(fixturesDir, 'photo.jpg'));
  type Change = 'upload' | 'removal';
  const moments: [Change, string, () => [object, string, 'before' | 'after']][] = [
    ['upload', 'while the picture is still being read and converted', () => [t.app.deps.limits.pictureUpload, 'consume', 'after']],
    ['upload', 'after the conversion, before the new picture is stored', () => [t.app.deps.pictures, 'writeAll', 'before']],
    ['upload', 'after the new picture is stored, before the account points at it', () => [t.store.users, 'swapPfpTimestamp', 'before']],
    ['upload', 'after the account points at the new picture, before the answer', () => [t.store.users, 'swapPfpTimestamp', 'after']],
    ['removal', 'before the account stops pointing at the picture', () => [t.store.users, 'swapPfpTimestamp', 'before']],
    ['removal', 'after the account stops pointing at the picture, before the answer', () => [t.store.users, 'swapPfpTimestamp', 'after']],
  ];

  for (const [change, moment, where] of moments) {
    it(`${change}, deleted ${moment}: 401 "Sign in first", and no picture of the account is left`, async () => {
      const { agent, user } = await signedInAgent(t);
      const old = await setPicture({ store: t.store, pictures: t.app.deps.pictures, now: t.clock.now }, user.id, photo);
      const csrf = await agent.csrf();
      const [target, method, when] = where();
      let deletion: number | undefined;
      const restore = interceptOnce(target, method, when, async () => {
        deletion = (await agent.json('POST', '/api/account/deletion', { password: TEST_PASSWORD, confirm: user.name })).status;
      });
      let res: Response;
      try {
        if (change === 'upload') {
          const form = new FormData();
          form.append('file', new Blob([new Uint8Array(photo)], { type: 'image/jpeg' }), 'photo.jpg');
          res = await agent.fetch('/api/account/picture', { method: 'PUT', body: form, headers: { 'X-CSRF-Token': csrf } });
        } else {
          res = await agent.fetch('/api/account/picture', { method: 'DELETE', headers: { 'X-CSRF-Token': csrf } });
        }
      } finally {
        restore();
      }
      expect(deletion).toBe(204);
      expect([res.status, await res.json()]).toEqual([401, { message: 'Sign in first' }]);
      expect(await t.store.users.getUser(user.id)).toBeUndefined();
      // Neither the old picture nor the new one: no file on SQLite, no row on PostgreSQL.
      expect(await storedPictures(t, user.id)).toEqual([]);
      expect(await t.store.knex('pictures').where({ user_id: user.id })).toEqual([]);
      for (const size of ['large', 'medium', 'small']) {
        expect((await fetch(`${t.baseUrl}/pfp/${size}/${user.id}-${old}.webp`)).status).toBe(404);
      }
    });
  }
});

describe('an account deleted (in another tab) while another change of its own is in flight', () => {
  // The deletion lands after the session was checked, just before the change's write: a write
  // that finds no account (a "not found", a foreign key refused) answers 401 like the session.
  const changes: [string, string, Record<string, unknown>, string, () => Promise<unknown[]>][] = [
    ['updateAccount', '/api/account', { bio: 'Gone soon' }, 'users.updateUser', async () => []],
    ['registerApp', '/api/apps', { name: 'Chess', redirect_uris: [CALLBACK] }, 'apps.createApp', () => t.store.knex('apps').where({ name: 'Chess' })],
    ['registerGame', '/api/games', { title: 'Orphan', url: 'https://game.example/orphan' }, 'games.createGame', () => t.store.knex('games').where({ title: 'Orphan' })],
  ];

  for (const [operationId, route, body, storeMethod, leftBehind] of changes) {
    it(`${operationId}: 401 "Sign in first", nothing written`, async () => {
      const { agent, user } = await signedInAgent(t);
      const method = operationId === 'updateAccount' ? 'PATCH' : 'POST';
      let deletion: number | undefined;
      const [aggregate, name] = storeMethod.split('.') as [keyof Aggregates, string];
      const restore = interceptOnce(t.store[aggregate], name, 'before', async () => {
        deletion = (await agent.json('POST', '/api/account/deletion', { password: TEST_PASSWORD, confirm: user.name })).status;
      });
      let res: Response;
      try {
        res = await agent.json(method, route, body);
      } finally {
        restore();
      }
      expect(deletion).toBe(204);
      expect([res.status, await res.json()]).toEqual([401, { message: 'Sign in first' }]);
      expect(await t.store.users.getUser(user.id)).toBeUndefined();
      expect(await leftBehind()).toEqual([]);
    });
  }

  it('every operation that requires a session declares the 401 the rule answers with', () => {
    type Operation = { operationId: string; security?: Record<string, unknown>[]; responses: Record<string, unknown> };
    const contract = yaml.load(fs.readFileSync(new URL('../../openapi.yaml', import.meta.url), 'utf8')) as { paths: Record<string, Record<string, Operation>> };
    const sessionOnly = Object.values(contract.paths)
      .flatMap((item) => Object.values(item))
      .filter((op) => op.security !== undefined && op.security.length > 0 && op.security.every((r) => 'session' in r));
    expect(sessionOnly.map((op) => op.operationId)).toEqual(expect.arrayContaining(changes.map(([operationId]) => operationId)));
    expect(sessionOnly.filter((op) => !('401' in op.responses)).map((op) => op.operationId)).toEqual([]);
  });

  it('a "not found" of an account that still exists is answered as it was', async () => {
    const { agent, user } = await signedInAgent(t);
    const res = await agent.json('DELETE', '/api/account/grants/nobody');
    expect([res.status, await res.json()]).toEqual([404, { message: 'No grant for this app' }]);
    expect(await t.store.users.getUser(user.id)).toBeDefined();
  });
});

describe('CLI user delete', () => {
  async function cli(...argv: string[]) {
    let stdout = '';
    let stderr = '';
    const env = { DATABASE_URL: t.config.databaseUrl, PICTURES_DIR: t.config.picturesDir, LOG_LEVEL: 'silent' };
    const code = await runCli(argv, { env, stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), now: t.clock.now });
    return { code, stdout, stderr };
  }

  it('does the same as the user deleting their account', async () => {
    const p = await populatedUser();
    const run = await cli('user', 'delete', '--id', String(p.user.id));
    expect(run).toEqual({ code: 0, stdout: `${JSON.stringify({ id: p.user.id, deleted: true })}\n`, stderr: '' });
    expect((await p.agent.fetch('/api/account')).status).toBe(401);
    await expectGone(p);
  });

  it('exits 3 for an unknown user', async () => {
    expect(await cli('user', 'delete', '--id', '999999')).toEqual({ code: 3, stdout: '', stderr: 'error: User 999999 not found\n' });
  });
});
