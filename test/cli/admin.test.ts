/** The operator CLI (src/cli/admin.ts), in-process through runCli (the real npm script: npm-script.test.ts). */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/admin.js';
import { SIZES, SIZE_NAMES } from '../../src/pictures/images.js';
import { FULL_PROFILE, publicUser } from '../fixtures/users.js';
import { Agent, fixturesDir, makeUser, oauthErrorBody, startServer, tempDir, tokenRequest, type TestServer } from '../helpers.js';
import { cliRunner } from './run.js';
import { NOTHING } from '../../src/domain/security-events.js';

let dir: string;
let env: NodeJS.ProcessEnv;
let t: TestServer;

const { cli, cliWith, ok, fails } = cliRunner(() => env);

let n = 0;
const uniqueName = () => `cli_${process.pid}_${++n}`;

/** `user create`: the password (scrypt at the service's cost) is `password-<name>`. */
async function createUser(name = uniqueName()): Promise<{ id: number; name: string }> {
  return ok<{ id: number; name: string }>('user', 'create', '--name', name, '--email', `${name}@example.com`, '--password', `password-${name}`);
}

/**
 * A user for a command that only needs one, written to the database the commands and the server
 * share, as `user create` would write it (verified, `<name>@example.com`) but with the harness's
 * fixture password hash: `user create` and its full-cost hash are tested above, and where a test
 * signs in with the password a command gave.
 */
async function storedUser(): Promise<{ id: number; name: string }> {
  const { id, name } = await makeUser(t, uniqueName());
  return { id, name };
}

async function cliCreateApp(ownerId: number, ...uris: string[]): Promise<{ client_id: string; client_secret: string }> {
  const redirects = (uris.length ? uris : ['https://app.example/cb']).flatMap((u) => ['--redirect-uri', u]);
  return ok('app', 'create', '--owner', String(ownerId), '--name', 'CLI App', ...redirects);
}

async function redeem(params: Record<string, string>): Promise<{ status: number; body: unknown }> {
  const res = await tokenRequest(t, { grant_type: 'authorization_code', ...params });
  return { status: res.status, body: await res.json() };
}

async function whois(token: string): Promise<unknown> {
  const res = await fetch(`${t.baseUrl}/api/oauth/whois`, { headers: { Authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  return res.json();
}

beforeAll(async () => {
  dir = tempDir('idp-cli-');
  env = { DATABASE_URL: path.join(dir, 'cli.sqlite'), PICTURES_DIR: path.join(dir, 'pics'), LOG_LEVEL: 'silent' };
  // The real server over the same database and picture folder, to prove what the CLI wrote works.
  t = await startServer({ DATABASE_URL: env.DATABASE_URL, PICTURES_DIR: env.PICTURES_DIR, DEMO_DATA: 'false' });
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('user', () => {
  it('create prints {id, name}', async () => {
    const name = uniqueName();
    const created = await createUser(name);
    expect(Object.keys(created).sort()).toEqual(['id', 'name']);
    expect(created.name).toBe(name);
    expect(Number.isSafeInteger(created.id) && created.id > 0).toBe(true);
    // user show prints the default public user.
    expect(await ok('user', 'show', '--id', String(created.id))).toEqual(publicUser(created));
  });

  it('update with every option prints the public user, and users/info agrees', async () => {
    const user = await storedUser();
    const updated = await ok(
      'user', 'update', '--id', String(user.id),
      '--bio', FULL_PROFILE.bio,
      '--flairs', 'none, gold,beta-tester',
      '--equipped-flair', FULL_PROFILE.equippedFlair,
      '--mod-level', String(FULL_PROFILE.modLevel),
      '--play-minutes', String(FULL_PROFILE.playMinutes),
      '--last-heartbeat', String(FULL_PROFILE.lastHeartbeat),
    );
    const expected = publicUser(user, FULL_PROFILE);
    expect(updated).toEqual(expected);
    const res = await fetch(`${t.baseUrl}/api/users/info?id=${user.id}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ message: 'yes', user: expected });
  });

  it('fails on a duplicate name (ignoring case)', async () => {
    const { name } = await storedUser();
    await fails(4, 'Name is already taken', 'user', 'create', '--name', name.toUpperCase(), '--email', `other-${name}@example.com`, '--password', 'password-123');
  });

  // knex puts the whole INSERT statement, which names the name_key column too, into the error
  // message: the store must read only SQLite's own part of it, or this reads as a duplicate name.
  it('fails on a duplicate email', async () => {
    const { name } = await storedUser();
    await fails(4, 'Email address is already registered', 'user', 'create', '--name', `${name}_b`, '--email', `${name}@example.com`, '--password', 'password-123');
  });

  it('fails on a bad email', async () => {
    await fails(1, 'Email address is not valid', 'user', 'create', '--name', uniqueName(), '--email', 'not-an-email', '--password', 'password-123');
  });

  it('fails on a bad name', async () => {
    await fails(1, 'Name must be 3 to 28 characters of A-Z, a-z, 0-9, _ and -', 'user', 'create', '--name', 'a b', '--email', 'ab@example.com', '--password', 'password-123');
  });

  it('fails on --mod-level 7 and changes nothing', async () => {
    const { id } = await storedUser();
    await fails(1, 'modLevel must be an integer from 0 to 3', 'user', 'update', '--id', String(id), '--mod-level', '7', '--bio', 'x');
    expect(await ok('user', 'show', '--id', String(id))).toMatchObject({ modLevel: 0, bio: '' });
  });

  it('fails on an equipped flair the user does not own', async () => {
    const { id } = await storedUser();
    await fails(1, 'The user does not own the flair "gold"', 'user', 'update', '--id', String(id), '--equipped-flair', 'gold');
  });

  it('fails on an unknown user id', async () => {
    await fails(3, 'User 999999 not found', 'user', 'show', '--id', '999999');
    await fails(3, 'User 999999 not found', 'user', 'update', '--id', '999999', '--bio', 'x');
  });

  it('fails on a non-integer id (usage error, exit 2)', async () => {
    await fails(2, "option '--id <id>' argument 'abc' is invalid. --id must be a non-negative integer", 'user', 'show', '--id', 'abc');
    await fails(2, "option '--id <id>' argument '1.5' is invalid. --id must be a non-negative integer", 'user', 'update', '--id', '1.5');
    await fails(2, "option '--mod-level <n>' argument '-1' is invalid. --mod-level must be a non-negative integer", 'user', 'update', '--id', '1', '--mod-level', '-1');
  });

  it('fails on a missing required option (usage error, exit 2)', async () => {
    await fails(2, "required option '--email <email>' not specified", 'user', 'create', '--name', uniqueName(), '--password', 'password-123');
    await fails(2, "required option '--id <id>' not specified", 'user', 'show');
  });

  it('fails on an unknown command (usage error, exit 2)', async () => {
    await fails(2, "unknown command 'frobnicate'", 'user', 'frobnicate');
  });
});

describe('user factors', () => {
  it('lists the passkeys and the authenticator app; --reset removes them all, ends the sessions, audits and mails a notice', async () => {
    const user = await createUser();
    const agent = new Agent(t);
    await agent.signIn(user, `password-${user.name}`);
    const passkey = await t.store.passkeys.createPasskey({ userId: user.id, credentialId: `cred-${user.id}`, publicKey: 'public-key', counter: 0, transports: ['usb'], deviceType: 'singleDevice', backedUp: false, name: 'Phone', createdAt: 1000 });
    expect(await ok('user', 'factors', '--id', String(user.id))).toEqual({
      id: user.id,
      passkeys: [{ id: passkey.id, name: 'Phone', created_at: 1000, synced: false }],
      authenticator_app: { enabled: false, recovery_codes_left: 0 },
    });
    await t.store.authenticatorApp.savePendingTotp(user.id, 'sealed-seed', 2000);
    await t.store.authenticatorApp.confirmTotp(user.id, 'sealed-seed', 1, 3000, ['hash-1', 'hash-2'], NOTHING);
    const listed = await ok<{ authenticator_app: unknown }>('user', 'factors', '--id', String(user.id));
    expect(listed.authenticator_app).toEqual({ enabled: true, since: 3000, recovery_codes_left: 2 });
    expect(JSON.stringify(listed)).not.toMatch(/sealed-seed|hash-1|cred-|public-key/);

    const outbox = path.join(dir, 'outbox');
    const before = fs.existsSync(outbox) ? fs.readdirSync(outbox).length : 0;
    // The audit line goes to stderr (LOG_LEVEL=info here); stdout is the one JSON answer.
    const run = await cliWith({ ...env, LOG_LEVEL: 'info' }, 'user', 'factors', '--id', String(user.id), '--reset');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ id: user.id, passkeys: 1, totp: true, endedSessions: 1, notified: true });
    expect((await agent.fetch('/api/account')).status).toBe(401);
    const audit = run.stderr.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.event === 'factors_reset');
    expect(audit).toMatchObject({ audit: true, event: 'factors_reset', userId: user.id, source: 'cli', passkeys: 1, totp: true });
    const notices = fs.readdirSync(outbox).filter((f) => f.endsWith('-security_notice.eml'));
    expect(notices.length).toBe(before + 1);
    expect(await ok('user', 'factors', '--id', String(user.id))).toEqual({ id: user.id, passkeys: [], authenticator_app: { enabled: false, recovery_codes_left: 0 } });
    await fails(3, 'User 999999 not found', 'user', 'factors', '--id', '999999', '--reset');
  });
});

describe('moderation commands', () => {
  const actionsOn = async (id: number) => (await ok<{ actions: Record<string, unknown>[] }>('moderation', 'actions', '--target', String(id))).actions;

  it('user update --mod-level is a recorded action with no moderator', async () => {
    const user = await storedUser();
    await ok('user', 'update', '--id', String(user.id), '--mod-level', '2');
    expect(await actionsOn(user.id)).toEqual([{ id: expect.any(Number), target: user, action: 'set_mod_level', mod_level: 2, created_at: expect.any(Number) }]);
    // The same level again changes nothing and records nothing.
    await ok('user', 'update', '--id', String(user.id), '--mod-level', '2');
    expect(await actionsOn(user.id)).toHaveLength(1);
  });

  it('user suspend refuses sign-in and codes until unsuspend; hide-bio, remove-picture; errors by exit code', async () => {
    const user = await createUser();
    const owner = await storedUser();
    const app = await cliCreateApp(owner.id);
    const until = '2099-12-01T12:00:00Z';
    const suspended = await ok<{ suspension: unknown; can_act: boolean }>('user', 'suspend', '--id', String(user.id), '--reason', 'Spam', '--until', until);
    expect(suspended.suspension).toEqual({ reason: 'Spam', since: expect.any(Number), until: Date.parse(until) });
    expect(suspended.can_act).toBe(true);
    const message = 'This account is suspended until 2099-12-01 12:00 UTC: Spam';
    await fails(1, message, 'code', 'issue', '--user', String(user.id), '--client-id', app.client_id, '--scope', 'userinfo');
    const signIn = await new Agent(t).form('/signin', { name: user.name, password: `password-${user.name}` });
    expect(signIn.status).toBe(403);
    expect(await signIn.text()).toContain(message);
    await fails(1, 'until must be in the future', 'user', 'suspend', '--id', String(user.id), '--reason', 'r', '--until', '2001-01-01T00:00:00Z');
    await fails(3, 'User not found', 'user', 'suspend', '--id', '999999', '--reason', 'r');

    await ok('user', 'unsuspend', '--id', String(user.id));
    await fails(4, 'This account is not suspended', 'user', 'unsuspend', '--id', String(user.id));
    await new Agent(t).signIn({ name: user.name }, `password-${user.name}`);

    await ok('user', 'update', '--id', String(user.id), '--bio', 'rude');
    expect(await ok('user', 'hide-bio', '--id', String(user.id), '--reason', 'Rude')).toMatchObject({ user: { bio: '' }, bio_removed: { reason: 'Rude' } });
    await fails(4, 'This user has no bio', 'user', 'hide-bio', '--id', String(user.id), '--reason', 'Rude');
    await fails(4, 'This user has no picture', 'user', 'remove-picture', '--id', String(user.id), '--reason', 'Gore');

    const actions = await actionsOn(user.id);
    expect(actions.map((a) => a.action)).toEqual(['hide_bio', 'lift_suspension', 'suspend']);
    expect(actions.every((a) => !('moderator' in a))).toBe(true);
    expect((await ok<{ actions: unknown[] }>('moderation', 'actions', '--limit', '1')).actions).toEqual([actions[0]]);
    await fails(1, 'limit must be between 1 and 200', 'moderation', 'actions', '--limit', '0');
  });

  it('reports list prints the queue as listReports gives it', async () => {
    const [reporter, target] = [await storedUser(), await storedUser()];
    const report = await t.store.moderation.createReport({ reporterId: reporter.id, targetId: target.id, reason: 'spam', text: 'Ads', createdAt: 1_800_000_000_000 });
    const queue = await ok<{ targets: { user: { id: number } }[] }>('reports', 'list');
    expect(queue.targets.find((g) => g.user.id === target.id)).toEqual({
      user: target,
      mod_level: 0,
      first_reported_at: 1_800_000_000_000,
      reports: [{ id: report.id, target, reporter, reason: 'spam', text: 'Ads', created_at: 1_800_000_000_000 }],
    });
  });
});

describe('app', () => {
  it('create with two --redirect-uri prints a client id (11 chars) and secret (43 chars); both URIs are registered', async () => {
    const { id } = await storedUser();
    const app = await cliCreateApp(id, 'https://app.example/cb', 'http://localhost:8080/cb');
    expect(Object.keys(app).sort()).toEqual(['client_id', 'client_secret']);
    expect(app.client_id).toMatch(/^[A-Za-z0-9_-]{11}$/);
    expect(app.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const stored = await t.store.apps.getApp(app.client_id);
    expect(stored?.redirectUris).toEqual(['https://app.example/cb', 'http://localhost:8080/cb']);
    expect(stored?.ownerId).toBe(id);
    expect(stored?.name).toBe('CLI App');
  });

  it('create fails for an unknown owner and for a non-https redirect URI', async () => {
    await fails(3, 'User 999999 not found', 'app', 'create', '--owner', '999999', '--name', 'X', '--redirect-uri', 'https://a.example/cb');
    const { id } = await storedUser();
    await fails(1, 'Redirect URI must use https (http is allowed on localhost only): http://a.example/cb',
      'app', 'create', '--owner', String(id), '--name', 'X', '--redirect-uri', 'http://a.example/cb');
    await fails(2, "required option '--redirect-uri <uri>' not specified", 'app', 'create', '--owner', String(id), '--name', 'X');
  });

  it('create takes repeated --grant-type (stored in the contract\'s order; default authorization_code alone) and refuses an unknown one or a list without authorization_code', async () => {
    const { id } = await storedUser();
    const plain = await cliCreateApp(id);
    expect((await t.store.apps.getApp(plain.client_id))?.grantTypes).toEqual(['authorization_code']);
    const app = await ok<{ client_id: string; client_secret: string }>('app', 'create', '--owner', String(id), '--name', 'CLI App', '--redirect-uri', 'https://app.example/cb',
      '--grant-type', 'refresh_token', '--grant-type', 'authorization_code');
    expect(Object.keys(app).sort()).toEqual(['client_id', 'client_secret']);
    expect((await t.store.apps.getApp(app.client_id))?.grantTypes).toEqual(['authorization_code', 'refresh_token']);
    await fails(1, 'Unknown grant type "implicit": one of authorization_code, refresh_token, urn:ietf:params:oauth:grant-type:device_code',
      'app', 'create', '--owner', String(id), '--name', 'X', '--redirect-uri', 'https://a.example/cb', '--grant-type', 'implicit');
    await fails(1, 'grant_types must include authorization_code',
      'app', 'create', '--owner', String(id), '--name', 'X', '--redirect-uri', 'https://a.example/cb', '--grant-type', 'refresh_token');
  });

  it('rotate-secret prints a new secret; the old one stops working, the new one works', async () => {
    const { id } = await storedUser();
    const app = await cliCreateApp(id);
    const rotated = await ok<{ client_id: string; client_secret: string }>('app', 'rotate-secret', '--client-id', app.client_id);
    expect(rotated.client_id).toBe(app.client_id);
    expect(rotated.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(rotated.client_secret).not.toBe(app.client_secret);

    const { code } = await ok<{ code: string }>('code', 'issue', '--user', String(id), '--client-id', app.client_id, '--scope', 'userinfo');
    expect(await redeem({ code, client_id: app.client_id, client_secret: app.client_secret })).toEqual({
      status: 401,
      body: oauthErrorBody('invalid_client', 'Invalid client secret'),
    });
    const res = await redeem({ code, client_id: app.client_id, client_secret: rotated.client_secret });
    expect(res.status).toBe(200);
  });

  it('rotate-secret, update and delete fail for an unknown client id', async () => {
    await fails(3, 'App nosuchclient not found', 'app', 'rotate-secret', '--client-id', 'nosuchclient');
    await fails(3, 'App nosuchclient not found', 'app', 'update', '--client-id', 'nosuchclient', '--name', 'X');
    await fails(3, 'App nosuchclient not found', 'app', 'delete', '--client-id', 'nosuchclient');
  });

  it('update changes the name and replaces the address lists it is given, prints the app as listApps gives it; the secret keeps working', async () => {
    const { id } = await storedUser();
    const app = await cliCreateApp(id, 'https://app.example/cb');
    const created = (await t.store.apps.getApp(app.client_id))!.createdAt;
    const listed = {
      client_id: app.client_id,
      name: 'CLI App',
      public: false,
      redirect_uris: ['https://app.example/cb'],
      post_logout_redirect_uris: [],
      grant_types: ['authorization_code'],
      created_at: created,
    };
    expect(await ok('app', 'update', '--client-id', app.client_id, '--name', ' Renamed ')).toEqual({ ...listed, name: 'Renamed' });
    const moved = await ok('app', 'update', '--client-id', app.client_id, '--redirect-uri', 'https://new.example/cb', '--redirect-uri', 'http://localhost:9000/cb',
      '--post-logout-redirect-uri', 'https://new.example/bye');
    const after = { ...listed, name: 'Renamed', redirect_uris: ['https://new.example/cb', 'http://localhost:9000/cb'], post_logout_redirect_uris: ['https://new.example/bye'] };
    expect(moved).toEqual(after);
    expect(await ok('app', 'update', '--client-id', app.client_id, '--clear-post-logout-redirect-uris')).toEqual({ ...after, post_logout_redirect_uris: [] });
    const refreshing = { ...after, post_logout_redirect_uris: [], grant_types: ['authorization_code', 'refresh_token'] };
    expect(await ok('app', 'update', '--client-id', app.client_id, '--grant-type', 'refresh_token', '--grant-type', 'authorization_code')).toEqual(refreshing);
    expect(await ok('app', 'update', '--client-id', app.client_id, '--grant-type', 'authorization_code')).toEqual({ ...refreshing, grant_types: ['authorization_code'] });
    const { code } = await ok<{ code: string }>('code', 'issue', '--user', String(id), '--client-id', app.client_id, '--scope', 'userinfo');
    expect((await redeem({ code, client_id: app.client_id, client_secret: app.client_secret })).status).toBe(200);
  });

  it('update refuses what registration refuses, and needs something to change (usage error, exit 2)', async () => {
    const { id } = await storedUser();
    const app = await cliCreateApp(id);
    await fails(1, 'Redirect URI must use https (http is allowed on localhost only): http://a.example/cb', 'app', 'update', '--client-id', app.client_id, '--redirect-uri', 'http://a.example/cb');
    await fails(1, 'App name must be 1 to 64 characters', 'app', 'update', '--client-id', app.client_id, '--name', ' ');
    await fails(1, 'Unknown grant type "device_code": one of authorization_code, refresh_token, urn:ietf:params:oauth:grant-type:device_code', 'app', 'update', '--client-id', app.client_id, '--grant-type', 'device_code');
    await fails(1, 'grant_types must include authorization_code', 'app', 'update', '--client-id', app.client_id, '--grant-type', 'refresh_token');
    await fails(2, 'give at least one of --name, --redirect-uri, --post-logout-redirect-uri, --clear-post-logout-redirect-uris and --grant-type', 'app', 'update', '--client-id', app.client_id);
    const both = await cli('app', 'update', '--client-id', app.client_id, '--post-logout-redirect-uri', 'https://a.example/', '--clear-post-logout-redirect-uris');
    expect(both.code).toBe(2);
    expect(both.stdout).toBe('');
    expect(await t.store.apps.getApp(app.client_id)).toMatchObject({ redirectUris: ['https://app.example/cb'], grantTypes: ['authorization_code'] });
  });

  it('delete prints {} and the app is gone', async () => {
    const { id } = await storedUser();
    const app = await cliCreateApp(id);
    expect(await ok('app', 'delete', '--client-id', app.client_id)).toEqual({});
    expect(await t.store.apps.getApp(app.client_id)).toBeUndefined();
  });

  it('delete does what DELETE /api/apps/{clientId} does: its tokens and unredeemed codes stop working', async () => {
    const { id } = await storedUser();
    const app = await cliCreateApp(id);
    const issue = async () => (await ok<{ code: string }>('code', 'issue', '--user', String(id), '--client-id', app.client_id, '--scope', 'userinfo')).code;
    const exchanged = await redeem({ code: await issue(), client_id: app.client_id, client_secret: app.client_secret });
    const token = (exchanged.body as { access_token: string }).access_token;
    await whois(token);
    const code = await issue();

    expect(await ok('app', 'delete', '--client-id', app.client_id)).toEqual({});
    const res = await fetch(`${t.baseUrl}/api/oauth/whois`, { headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(401);
    expect(await redeem({ code, client_id: app.client_id, client_secret: app.client_secret })).toEqual({ status: 401, body: oauthErrorBody('invalid_client', 'Unknown client') });
    await fails(3, `App ${app.client_id} not found`, 'app', 'delete', '--client-id', app.client_id);
  });
});

describe('code issue', () => {
  let user: { id: number; name: string };
  let app: { client_id: string; client_secret: string };
  beforeAll(async () => {
    user = await storedUser();
    app = await cliCreateApp(user.id, 'https://app.example/cb', 'https://app.example/other');
  });

  it('prints {code} (43 chars) that the real token endpoint redeems; whois shows the user and email', async () => {
    const issued = await ok<{ code: string }>('code', 'issue', '--user', String(user.id), '--client-id', app.client_id, '--scope', 'userinfo email');
    expect(Object.keys(issued)).toEqual(['code']);
    expect(issued.code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const res = await redeem({ code: issued.code, client_id: app.client_id, client_secret: app.client_secret });
    expect(res.status).toBe(200);
    const body = res.body as { access_token: string; token_type: string; expires_in: number };
    expect({ token_type: body.token_type, expires_in: body.expires_in }).toEqual({ token_type: 'Bearer', expires_in: 600 });
    expect(await whois(body.access_token)).toEqual({ id: user.id, name: user.name, email: `${user.name}@example.com` });
  });

  it('binds the code to a registered --redirect-uri', async () => {
    const { code } = await ok<{ code: string }>('code', 'issue', '--user', String(user.id), '--client-id', app.client_id, '--scope', 'userinfo', '--redirect-uri', 'https://app.example/other');
    expect(await redeem({ code, client_id: app.client_id, client_secret: app.client_secret, redirect_uri: 'https://app.example/cb' })).toEqual({
      status: 400,
      body: oauthErrorBody('invalid_grant', 'redirect_uri does not match the one the code was issued for'),
    });
    const { code: code2 } = await ok<{ code: string }>('code', 'issue', '--user', String(user.id), '--client-id', app.client_id, '--scope', 'userinfo', '--redirect-uri', 'https://app.example/other');
    const res = await redeem({ code: code2, client_id: app.client_id, client_secret: app.client_secret, redirect_uri: 'https://app.example/other' });
    expect(res.status).toBe(200);
  });

  it('with --code-challenge: redeemed only with the matching code_verifier', async () => {
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const issue = () => ok<{ code: string }>('code', 'issue', '--user', String(user.id), '--client-id', app.client_id, '--scope', 'userinfo', '--code-challenge', challenge);
    const base = { client_id: app.client_id, client_secret: app.client_secret };

    const { code: a } = await issue();
    expect(await redeem({ ...base, code: a })).toEqual({ status: 400, body: oauthErrorBody('invalid_grant', 'code_verifier is required for this code') });
    const { code: b } = await issue();
    expect(await redeem({ ...base, code: b, code_verifier: randomBytes(32).toString('base64url') })).toEqual({
      status: 400,
      body: oauthErrorBody('invalid_grant', 'code_verifier does not match the code_challenge'),
    });
    const { code: c } = await issue();
    const res = await redeem({ ...base, code: c, code_verifier: verifier });
    expect(res.status).toBe(200);
    expect(await whois((res.body as { access_token: string }).access_token)).toEqual({ id: user.id, name: user.name });
  });

  it('fails on a malformed --code-challenge', async () => {
    await fails(1, 'code_challenge must be an S256 challenge: 43 base64url characters',
      'code', 'issue', '--user', String(user.id), '--client-id', app.client_id, '--scope', 'userinfo', '--code-challenge', 'plain-verifier');
  });

  it('refuses email for a user created --unverified (exit 1, no code stored); userinfo alone still works', async () => {
    const name = uniqueName();
    const unverified = await ok<{ id: number }>('user', 'create', '--name', name, '--email', `${name}@example.com`, '--password', 'cli-password-1', '--unverified');
    expect((await t.store.users.getUser(unverified.id))!.emailVerifiedAt).toBeNull();
    expect((await t.store.users.getUser(user.id))!.emailVerifiedAt).not.toBeNull();
    await fails(1, 'The email scope needs a verified email address, and this user has not verified theirs yet',
      'code', 'issue', '--user', String(unverified.id), '--client-id', app.client_id, '--scope', 'userinfo email');
    expect(await t.store.knex('auth_codes').where({ user_id: unverified.id })).toHaveLength(0);
    await ok('code', 'issue', '--user', String(unverified.id), '--client-id', app.client_id, '--scope', 'userinfo');
  });

  it("fails on the scope 'admin'", async () => {
    await fails(1, 'Unknown scope "admin"', 'code', 'issue', '--user', String(user.id), '--client-id', app.client_id, '--scope', 'admin');
  });

  it('fails on email without userinfo', async () => {
    await fails(1, 'The email scope requires the userinfo scope', 'code', 'issue', '--user', String(user.id), '--client-id', app.client_id, '--scope', 'email');
  });

  it('fails on an unregistered redirect URI', async () => {
    await fails(1, 'Redirect URI is not registered for this app: https://evil.example/cb',
      'code', 'issue', '--user', String(user.id), '--client-id', app.client_id, '--scope', 'userinfo', '--redirect-uri', 'https://evil.example/cb');
  });

  it('fails on an unknown client id', async () => {
    await fails(3, 'App nosuchclient not found', 'code', 'issue', '--user', String(user.id), '--client-id', 'nosuchclient', '--scope', 'userinfo');
  });

  it('fails on an unknown user id', async () => {
    await fails(3, 'User 999999 not found', 'code', 'issue', '--user', '999999', '--client-id', app.client_id, '--scope', 'userinfo');
  });

  it('fails on a missing --scope (usage error, exit 2)', async () => {
    await fails(2, "required option '--scope <scopes>' not specified", 'code', 'issue', '--user', String(user.id), '--client-id', app.client_id);
  });
});

describe('picture', () => {
  function userFiles(id: number): string[] {
    const out: string[] = [];
    for (const size of SIZE_NAMES) {
      const d = path.join(dir, 'pics', size);
      if (fs.existsSync(d)) for (const f of fs.readdirSync(d)) if (f.startsWith(`${id}-`) || f.startsWith(`.${id}-`)) out.push(`${size}/${f}`);
    }
    return out.sort();
  }

  it('set --file prints {pfpTimestamp}; the server serves it; remove prints {} and deletes it', async () => {
    const { id } = await storedUser();
    const before = Date.now();
    const set = await ok<{ pfpTimestamp: number }>('picture', 'set', '--user', String(id), '--file', path.join(fixturesDir, 'photo.jpg'));
    expect(Object.keys(set)).toEqual(['pfpTimestamp']);
    expect(set.pfpTimestamp).toBeGreaterThanOrEqual(before);
    expect(set.pfpTimestamp).toBeLessThanOrEqual(Date.now());
    const ts = set.pfpTimestamp;
    expect(userFiles(id)).toEqual(SIZE_NAMES.map((s) => `${s}/${id}-${ts}.webp`).sort());
    expect((await ok('user', 'show', '--id', String(id))).pfpTimestamp).toBe(ts);

    for (const size of SIZE_NAMES) {
      const res = await fetch(`${t.baseUrl}/pfp/${size}/${id}-${ts}.webp`);
      expect(res.status).toBe(200);
      const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['webp', SIZES[size], SIZES[size]]);
    }

    const again = await ok<{ pfpTimestamp: number }>('picture', 'set', '--user', String(id), '--file', path.join(fixturesDir, 'transparent.png'));
    expect(again.pfpTimestamp).toBeGreaterThan(ts);
    expect(userFiles(id)).toEqual(SIZE_NAMES.map((s) => `${s}/${id}-${again.pfpTimestamp}.webp`).sort());

    expect(await ok('picture', 'remove', '--user', String(id))).toEqual({});
    expect(userFiles(id)).toEqual([]);
    expect(await ok('user', 'show', '--id', String(id))).not.toHaveProperty('pfpTimestamp');
    const old = await fetch(`${t.baseUrl}/pfp/large/${id}-${again.pfpTimestamp}.webp`);
    expect(old.status).toBe(404);
    expect(await old.json()).toEqual({ message: 'Profile picture not found' });
  });

  it('import is for PostgreSQL: on SQLite it refuses, exit 1 (the PostgreSQL run is in test/pictures/pictures.test.ts)', async () => {
    await fails(1, 'import is for PostgreSQL: on SQLite the pictures stay in PICTURES_DIR', 'picture', 'import');
  });

  it('fails on an unreadable file', async () => {
    const { id } = await storedUser();
    const missing = path.join(dir, 'no-such-file.jpg');
    await fails(1, `Cannot read ${missing}: ENOENT`, 'picture', 'set', '--user', String(id), '--file', missing);
    await fails(1, `Cannot read ${dir}: EISDIR`, 'picture', 'set', '--user', String(id), '--file', dir);
  });

  it('fails on an invalid image and keeps the old picture', async () => {
    const { id } = await storedUser();
    const { pfpTimestamp } = await ok<{ pfpTimestamp: number }>('picture', 'set', '--user', String(id), '--file', path.join(fixturesDir, 'photo.jpg'));
    await fails(1, 'The picture must be a JPEG, PNG, WebP, GIF or AVIF image', 'picture', 'set', '--user', String(id), '--file', path.join(fixturesDir, 'picture.png'));
    await fails(1, 'The picture could not be read: the file is damaged or truncated', 'picture', 'set', '--user', String(id), '--file', path.join(fixturesDir, 'truncated.jpg'));
    expect((await ok('user', 'show', '--id', String(id))).pfpTimestamp).toBe(pfpTimestamp);
    expect(userFiles(id)).toEqual(SIZE_NAMES.map((s) => `${s}/${id}-${pfpTimestamp}.webp`).sort());
  });

  it('fails on an unknown user', async () => {
    await fails(3, 'User 999999 not found', 'picture', 'set', '--user', '999999', '--file', path.join(fixturesDir, 'photo.jpg'));
    await fails(3, 'User 999999 not found', 'picture', 'remove', '--user', '999999');
  });

  it('fails on a missing --file (usage error, exit 2)', async () => {
    await fails(2, "required option '--file <path>' not specified", 'picture', 'set', '--user', '1');
  });
});

describe('game', () => {
  it('create prints {id}; list shows it with its author; the play page frames its address', async () => {
    const author = await storedUser();
    const created = await ok<{ id: number }>('game', 'create', '--author', String(author.id), '--title', 'Space Chess', '--url', 'https://chess.example/play');
    expect(Object.keys(created)).toEqual(['id']);
    const { games } = await ok<{ games: { id: number }[] }>('game', 'list');
    expect(games.find((g) => g.id === created.id)).toEqual({
      id: created.id,
      title: 'Space Chess',
      url: 'https://chess.example/play',
      author: { id: author.id, name: author.name },
      created_at: expect.any(Number),
    });
    const page = await fetch(`${t.baseUrl}/play/${created.id}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain('frame-src \'self\' https://chess.example');
  });

  it('create refuses a plain-http address off localhost, a bad title and an unknown author', async () => {
    const author = await storedUser();
    await fails(1, 'Game URL must use https (http is allowed on localhost only): http://chess.example/', 'game', 'create', '--author', String(author.id), '--title', 'T', '--url', 'http://chess.example/');
    await fails(1, 'Game title must be 1 to 64 characters', 'game', 'create', '--author', String(author.id), '--title', ' ', '--url', 'https://chess.example/');
    await fails(3, 'User 999999 not found', 'game', 'create', '--author', '999999', '--title', 'T', '--url', 'https://chess.example/');
  });

  it('fails on a missing --url (usage error, exit 2)', async () => {
    expect((await cli('game', 'create', '--author', '1', '--title', 'T')).code).toBe(2);
  });

  it('update changes the title and/or the address and prints the game as listGames gives it; the play page follows', async () => {
    const author = await storedUser();
    const { id } = await ok<{ id: number }>('game', 'create', '--author', String(author.id), '--title', 'Old', '--url', 'https://old.example/play');
    const created = (await t.store.games.getGame(id))!.createdAt;
    const listed = { id, title: 'Old', url: 'https://old.example/play', author: { id: author.id, name: author.name }, created_at: created };
    expect(await ok('game', 'update', '--id', String(id), '--title', ' New ')).toEqual({ ...listed, title: 'New' });
    expect(await ok('game', 'update', '--id', String(id), '--url', 'https://new.example/play')).toEqual({ ...listed, title: 'New', url: 'https://new.example/play' });
    const page = await fetch(`${t.baseUrl}/play/${id}`);
    expect(page.headers.get('content-security-policy')).toContain("frame-src 'self' https://new.example");
    await page.text();
    await fails(1, 'Game URL must not contain a fragment: https://new.example/#x', 'game', 'update', '--id', String(id), '--url', 'https://new.example/#x');
    await fails(2, 'give --title, --url or both', 'game', 'update', '--id', String(id));
    await fails(3, 'Game 999999 not found', 'game', 'update', '--id', '999999', '--title', 'T');
  });

  it('delete prints {}; /play/<id> answers 404 and list no longer shows it; an unknown id exits 3', async () => {
    const author = await storedUser();
    const { id } = await ok<{ id: number }>('game', 'create', '--author', String(author.id), '--title', 'Doomed', '--url', 'https://doomed.example/');
    expect(await ok('game', 'delete', '--id', String(id))).toEqual({});
    expect((await fetch(`${t.baseUrl}/play/${id}`)).status).toBe(404);
    expect((await ok<{ games: { id: number }[] }>('game', 'list')).games.map((g) => g.id)).not.toContain(id);
    await fails(3, `Game ${id} not found`, 'game', 'delete', '--id', String(id));
  });

  it('remove is a moderation action with no moderator: recorded on the author with the game and the reason', async () => {
    const author = await storedUser();
    const { id } = await ok<{ id: number }>('game', 'create', '--author', String(author.id), '--title', 'Rude', '--url', 'https://rude.example/');
    const run = await cli('game', 'remove', '--id', String(id), '--reason', 'Slurs');
    expect(run.code).toBe(0);
    const answer = JSON.parse(run.stdout) as { user: { id: number }; actions: unknown[] };
    const action = { id: expect.any(Number), target: author, action: 'remove_game', reason: 'Slurs', game: { id, title: 'Rude' }, created_at: expect.any(Number) };
    expect([answer.user.id, answer.actions]).toEqual([author.id, [action]]);
    expect(await t.store.games.getGame(id)).toBeUndefined();
    expect((await ok<{ actions: unknown[] }>('moderation', 'actions', '--target', String(author.id))).actions).toEqual([action]);
    await fails(3, 'Game not found', 'game', 'remove', '--id', String(id), '--reason', 'again');
    await fails(2, "required option '--reason <text>' not specified", 'game', 'remove', '--id', String(id));
  });
});

describe('configuration', () => {
  it('a bad LOG_LEVEL is reported as an error, exit 1', async () => {
    let stdout = '';
    let stderr = '';
    const code = await runCli(['user', 'show', '--id', '1'], {
      env: { ...env, LOG_LEVEL: 'loud' },
      stdout: (s) => (stdout += s),
      stderr: (s) => (stderr += s),
    });
    expect({ code, stdout, stderr }).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"\n',
    });
  });

  it('is read once per run, by a command that needs the store, the picture folder and the log level', async () => {
    const { id } = await storedUser();
    await ok('picture', 'set', '--user', String(id), '--file', path.join(fixturesDir, 'photo.jpg'));
    let reads = 0;
    const counted = new Proxy(env, {
      get: (target, key) => {
        if (key === 'DATABASE_URL') reads++;
        return Reflect.get(target, key) as unknown;
      },
    });
    let stdout = '';
    const code = await runCli(['user', 'delete', '--id', String(id)], { env: counted, stdout: (s) => (stdout += s), stderr: () => {} });
    expect({ code, stdout, reads }).toEqual({ code: 0, stdout: `${JSON.stringify({ id, deleted: true })}\n`, reads: 1 });
  });
});
