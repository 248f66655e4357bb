/**
 * The table of security events (src/domain/security-events.ts), every row against every artifact,
 * through the real paths (the account API, the mailed links' pages, the moderator's and the
 * operator's actions): for each event, what was made before it is dead after it where the row
 * says so, and alive where it does not. Runs on SQLite and, with TEST_DATABASE=postgres, on
 * PostgreSQL (docs/account.md#what-each-security-event-ends).
 */
import http from 'node:http';
import { URI, type TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetFactors } from '../../src/accounts/factors.js';
import { addUpstream } from '../../src/upstreams/upstreams.js';
import type { AuditEvent, AuditFields } from '../../src/audit.js';
import { SECURITY_EVENTS, type SecurityEvent } from '../../src/domain/security-events.js';
import type { UserRecord } from '../../src/domain/users.js';
import { suspendUser } from '../../src/moderation/moderation.js';
import { SoftAuthenticator } from '../fixtures/soft-authenticator.js';
import { Agent, makeEmailLink, makeUser, signedInAgent, startServer, TEST_PASSWORD, tokenRequest, type TestServer } from '../helpers.js';
import { authorizeOverHttp, registerApp, type RegisteredApp } from '../oidc-flow.js';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const CALLBACK = 'https://events.example/callback';

let t: TestServer;
let developer: Agent;
let app: RegisteredApp;
let otherApp: RegisteredApp;
/** An upstream identity provider the links of the test are made at (never asked: no sign-in goes through it). */
let upstreamSlug: string;
const audited: [AuditEvent, AuditFields][] = [];
beforeAll(async () => {
  t = await startServer({}, { limits: { signInIp: { points: 10_000, seconds: 600 }, deviceStartIp: { points: 10_000, seconds: 600 } } });
  t.config.publicUrl = t.baseUrl;
  const audit = t.app.deps.audit;
  t.app.deps.audit = (event, fields) => {
    audited.push([event, fields]);
    audit(event, fields);
  };
  developer = (await signedInAgent(t)).agent;
  const grants = ['authorization_code', 'refresh_token', DEVICE_GRANT];
  app = await registerApp(developer, { name: 'Events Game', redirect_uris: [CALLBACK], grant_types: grants });
  otherApp = await registerApp(developer, { name: 'Other Game', redirect_uris: [CALLBACK], grant_types: grants });
  upstreamSlug = (await addUpstream({ store: t.store, now: t.clock.now, secrets: t.config.sessionSecrets }, { name: 'Events OP', source: { issuer: 'https://op.events.example' }, clientId: 'c', clientSecret: 's' })).slug;
});
afterAll(async () => t?.close());

function secretOf(a: RegisteredApp): Record<string, string> {
  return { client_id: a.client_id, client_secret: a.client_secret! };
}

/** A code for `a` through the authorization endpoint, as the signed-in `agent`. */
async function code(agent: Agent, a: RegisteredApp, scope: string): Promise<string> {
  const url = new URL(`${t.baseUrl}/oauth`);
  url.search = new URLSearchParams({ response_type: 'code', client_id: a.client_id, redirect_uri: CALLBACK, scope, state: 's' }).toString();
  const { callbackUrl } = await authorizeOverHttp(agent, url);
  return callbackUrl.searchParams.get('code')!;
}

async function exchange(a: RegisteredApp, c: string): Promise<Response> {
  return tokenRequest(t, { grant_type: 'authorization_code', code: c, redirect_uri: CALLBACK, ...secretOf(a) });
}

async function tokens(agent: Agent, a: RegisteredApp, scope: string): Promise<{ access_token: string; refresh_token?: string }> {
  const res = await exchange(a, await code(agent, a, scope));
  expect(res.status).toBe(200);
  return (await res.json()) as { access_token: string; refresh_token?: string };
}

/** A device code for `app`, approved on /device by the signed-in `agent`; the device has not polled. */
async function approvedDevice(agent: Agent): Promise<string> {
  const start = await fetch(`${t.baseUrl}/api/oauth/device_authorization`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...secretOf(app), scope: 'openid offline_access' }),
  });
  const { device_code: deviceCode, user_code: userCode } = (await start.json()) as { device_code: string; user_code: string };
  const decided = await agent.fetch('/device', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: await agent.csrf(), user_code: userCode, decision: 'approve' }),
    redirect: 'manual',
  });
  expect(decided.status).toBe(200);
  return deviceCode;
}

/** Everything a person holds, made before the event. */
interface Artifacts {
  actor: Agent;
  other: Agent;
  user: UserRecord;
  accessToken: string;
  refreshToken: string;
  otherAppAccessToken: string;
  code: string;
  deviceCode: string;
  resetLink: string;
}

async function artifacts(agent: Agent, user: UserRecord, totp?: TOTP): Promise<Artifacts> {
  const other = new Agent(t);
  await other.signIn(user);
  if (totp) {
    // The next time step: each is taken once.
    t.clock.advance(30_000);
    expect((await other.form('/signin/otp', { otp: totp.generate({ timestamp: t.clock.now() }) })).status).toBe(303);
  }
  const { access_token: accessToken } = await tokens(agent, app, 'userinfo');
  const { refresh_token: refreshToken } = await tokens(agent, app, 'openid offline_access');
  const { access_token: otherAppAccessToken } = await tokens(agent, otherApp, 'userinfo');
  return {
    actor: agent,
    other,
    user,
    accessToken,
    refreshToken: refreshToken!,
    otherAppAccessToken,
    code: await code(agent, app, 'userinfo'),
    deviceCode: await approvedDevice(agent),
    resetLink: await makeEmailLink(t, user.id, 'reset', null),
  };
}

/** Whether each artifact still works after the event. */
async function alive(a: Artifacts): Promise<Record<string, boolean>> {
  const whois = async (token: string) => (await fetch(`${t.baseUrl}/api/oauth/whois`, { headers: { Authorization: `Bearer ${token}` } })).status === 200;
  const refreshed = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: a.refreshToken, ...secretOf(app) });
  const polled = await tokenRequest(t, { grant_type: DEVICE_GRANT, device_code: a.deviceCode, ...secretOf(app) });
  const resetPage = await fetch(`${t.baseUrl}/reset-password?token=${a.resetLink}`);
  await Promise.all([refreshed, polled, resetPage].map((r) => r.arrayBuffer()));
  return {
    thisSession: (await a.actor.fetch('/api/account')).status === 200,
    otherSession: (await a.other.fetch('/api/account')).status === 200,
    accessToken: await whois(a.accessToken),
    refreshToken: refreshed.status === 200,
    code: (await exchange(app, a.code)).status === 200,
    deviceCode: polled.status === 200,
    resetLink: resetPage.status === 200,
    otherAppAccessToken: await whois(a.otherAppAccessToken),
  };
}

/** What the table says survives `event` (the session that made it: `thisSession`). */
function expected(event: SecurityEvent, o: { actorKept: boolean; clientScoped?: boolean }): Record<string, boolean> {
  const row = SECURITY_EVENTS[event];
  return {
    thisSession: o.actorKept && row.sessions !== 'all',
    otherSession: row.sessions === 'none',
    accessToken: !row.accessTokens,
    refreshToken: !row.refreshTokens,
    code: !row.codes,
    deviceCode: !row.deviceCodes,
    resetLink: !(row.mailLinks as readonly string[]).includes('reset'),
    otherAppAccessToken: o.clientScoped === true || !row.accessTokens,
  };
}

async function totpOn(agent: Agent): Promise<TOTP> {
  const setup = await agent.json('POST', '/api/account/totp', { password: TEST_PASSWORD });
  const totp = URI.parse(((await setup.json()) as { uri: string }).uri) as TOTP;
  const confirm = await agent.json('POST', '/api/account/totp/confirm', { code: totp.generate({ timestamp: t.clock.now() }) });
  expect(confirm.status).toBe(200);
  return totp;
}

async function addPasskey(agent: Agent): Promise<number> {
  const url = new URL(t.config.publicUrl);
  const key = new SoftAuthenticator({ rpId: url.hostname, origin: url.origin });
  const options = (await (await agent.json('POST', '/api/account/passkeys/options', { password: TEST_PASSWORD })).json()) as Parameters<SoftAuthenticator['register']>[0];
  const res = await agent.json('POST', '/api/account/passkeys', { credential: key.register(options) });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: number }).id;
}

/** Each event of the table, made to happen through its real path: what it does, and whether the acting session is kept. */
const EVENTS: Record<SecurityEvent, { setUp?: (agent: Agent, user: UserRecord) => Promise<unknown>; happen: (a: Artifacts, setUp: unknown) => Promise<void>; actorKept: boolean; clientScoped?: boolean }> = {
  password_changed: {
    actorKept: true,
    happen: async (a) => {
      expect((await a.actor.json('POST', '/api/account/password', { current_password: TEST_PASSWORD, new_password: 'a new password 123' })).status).toBe(204);
    },
  },
  password_reset: {
    actorKept: false,
    happen: async (a) => {
      const own = await makeEmailLink(t, a.user.id, 'reset', null);
      const visitor = new Agent(t);
      const res = await visitor.form('/reset-password', { token: own, password: 'a reset password 123' });
      expect(res.status).toBe(200);
    },
  },
  second_factor_enabled: {
    actorKept: true,
    happen: async (a) => {
      await totpOn(a.actor);
    },
  },
  second_factor_disabled: {
    actorKept: true,
    setUp: async (agent) => totpOn(agent),
    happen: async (a) => {
      expect((await a.actor.json('DELETE', '/api/account/totp', { password: TEST_PASSWORD })).status).toBe(204);
    },
  },
  upstream_unlinked: {
    actorKept: true,
    setUp: async (_agent, user) => (await t.store.upstreamIdentities.linkUpstreamIdentity({ userId: user.id, upstreamSlug: upstreamSlug, subject: `events-${user.id}`, email: null, createdAt: t.clock.now() })).id,
    happen: async (a, linkId) => {
      expect((await a.actor.json('DELETE', `/api/account/upstream-identities/${linkId as number}`, { password: TEST_PASSWORD })).status).toBe(204);
    },
  },
  passkey_removed: {
    actorKept: true,
    setUp: async (agent) => addPasskey(agent),
    happen: async (a, passkeyId) => {
      expect((await a.actor.json('DELETE', `/api/account/passkeys/${passkeyId as number}`, { password: TEST_PASSWORD })).status).toBe(204);
    },
  },
  factors_reset: {
    actorKept: false,
    setUp: async (agent) => addPasskey(agent),
    happen: async (a) => {
      expect(await resetFactors({ store: t.store, audit: t.app.deps.audit, now: t.clock.now }, a.user.id)).toMatchObject({ passkeys: 1 });
    },
  },
  signed_out_everywhere: {
    actorKept: false,
    happen: async (a) => {
      expect((await a.actor.json('POST', '/api/account/signout-everywhere')).status).toBe(204);
    },
  },
  grant_revoked: {
    actorKept: true,
    clientScoped: true,
    happen: async (a) => {
      expect((await a.actor.json('DELETE', `/api/account/grants/${app.client_id}`)).status).toBe(204);
    },
  },
  suspended: {
    actorKept: false,
    happen: async (a) => {
      await suspendUser({ store: t.store, now: t.clock.now, audit: t.app.deps.audit }, null, a.user.id, { reason: 'Spam' });
    },
  },
  account_deleted: {
    actorKept: false,
    happen: async (a) => {
      expect((await a.actor.json('POST', '/api/account/deletion', { password: TEST_PASSWORD, confirm: a.user.name })).status).toBe(204);
    },
  },
  email_changed: {
    actorKept: true,
    happen: async (a) => {
      const link = await makeEmailLink(t, a.user.id, 'change', `moved-${a.user.id}@example.com`);
      expect((await a.actor.fetch(`/verify-email?token=${link}`)).status).toBe(200);
    },
  },
  address_proven: {
    actorKept: false,
    setUp: async (agent, user) => {
      await t.store.knex('users').where({ id: user.id }).update({ email_verified_at: null });
      return addPasskey(agent);
    },
    happen: async (a) => {
      // A reset proves the mailbox: the mailbox's owner, perhaps not the account's maker.
      const link = await makeEmailLink(t, a.user.id, 'reset', null);
      expect((await new Agent(t).form('/reset-password', { token: link, password: 'the mailbox owner 1' })).status).toBe(200);
      expect(await t.store.passkeys.listPasskeys(a.user.id)).toEqual([]);
    },
  },
};

describe('what each security event ends', () => {
  for (const event of Object.keys(SECURITY_EVENTS) as SecurityEvent[]) {
    it(`${event}: ends what its row of the table says, and nothing else`, async () => {
      const spec = EVENTS[event];
      const { agent, user } = await signedInAgent(t);
      const setUp = await spec.setUp?.(agent, user);
      const made = await artifacts(agent, user, event === 'second_factor_disabled' ? (setUp as TOTP) : undefined);
      await spec.happen(made, setUp);
      const want = expected(event, spec);
      // A deletion takes every row of the person's with it, the other app's tokens too.
      if (event === 'account_deleted') for (const k of Object.keys(want)) want[k] = false;
      expect(await alive(made)).toEqual(want);
    });
  }

  it('covers every row of the table, and every artifact a row names', () => {
    expect(Object.keys(EVENTS).sort()).toEqual(Object.keys(SECURITY_EVENTS).sort());
    for (const row of Object.values(SECURITY_EVENTS)) {
      expect(Object.keys(row).sort()).toEqual(['accessTokens', 'codes', 'credentialChange', 'deviceCodes', 'mailLinks', 'refreshTokens', 'sessions', 'waysIn']);
    }
  });
});

describe('what was issued before a credential change, written after its transaction', () => {
  it('a code made before the change and stored after it is refused at the exchange', async () => {
    const { agent, user } = await signedInAgent(t);
    const made = await code(agent, app, 'userinfo');
    // As a request that read the session before the change and wrote its code after: the code's
    // row is older than the change, and still there.
    await t.store.knex('users').where({ id: user.id }).update({ credentials_changed_at: t.clock.now() + 1 });
    const res = await exchange(app, made);
    expect([res.status, await res.json()]).toEqual([
      400,
      {
        message: "Authorization code was issued before the account's sign-in changed: sign in again",
        error: 'invalid_grant',
        error_description: "Authorization code was issued before the account's sign-in changed: sign in again",
      },
    ]);
  });

  it('a device approval made before the change is refused when the device polls', async () => {
    const { agent, user } = await signedInAgent(t);
    const deviceCode = await approvedDevice(agent);
    await t.store.knex('users').where({ id: user.id }).update({ credentials_changed_at: t.clock.now() + 1 });
    const res = await tokenRequest(t, { grant_type: DEVICE_GRANT, device_code: deviceCode, ...secretOf(app) });
    expect([res.status, await res.json()]).toEqual([400, { message: 'The person denied this device', error: 'access_denied', error_description: 'The person denied this device' }]);
  });
});

describe('holes of the attacker review (issue 50), reproduced', () => {
  it('revoking an app ends a device it approved that has not polled yet: no token, no refresh family', async () => {
    const { agent } = await signedInAgent(t);
    const deviceCode = await approvedDevice(agent);
    expect((await agent.json('DELETE', `/api/account/grants/${app.client_id}`)).status).toBe(204);
    const res = await tokenRequest(t, { grant_type: DEVICE_GRANT, device_code: deviceCode, ...secretOf(app) });
    expect([res.status, ((await res.json()) as { error: string }).error]).toEqual([400, 'access_denied']);
    // And revoking again still says there is nothing left to revoke.
    expect((await agent.json('DELETE', `/api/account/grants/${app.client_id}`)).status).toBe(404);
  });

  it('a password change ends an unredeemed offline code and an approved, unpolled device code made before it', async () => {
    const { agent } = await signedInAgent(t);
    const offline = await code(agent, app, 'openid offline_access');
    const deviceCode = await approvedDevice(agent);
    expect((await agent.json('POST', '/api/account/password', { current_password: TEST_PASSWORD, new_password: 'after the theft 123' })).status).toBe(204);
    expect((await exchange(app, offline)).status).toBe(400);
    const polled = await tokenRequest(t, { grant_type: DEVICE_GRANT, device_code: deviceCode, ...secretOf(app) });
    expect([polled.status, ((await polled.json()) as { error: string }).error]).toEqual([400, 'access_denied']);
  });

  it('a reset ends them too', async () => {
    const user = await makeUser(t);
    const agent = new Agent(t);
    await agent.signIn(user);
    const offline = await code(agent, app, 'openid offline_access');
    const deviceCode = await approvedDevice(agent);
    const link = await makeEmailLink(t, user.id, 'reset', null);
    expect((await new Agent(t).form('/reset-password', { token: link, password: 'after the theft 123' })).status).toBe(200);
    expect((await exchange(app, offline)).status).toBe(400);
    expect((await tokenRequest(t, { grant_type: DEVICE_GRANT, device_code: deviceCode, ...secretOf(app) })).status).toBe(400);
  });
});

describe('proving an address never proven', () => {
  it("a reset of a pre-hijacked account proves the address and removes its maker's passkey, authenticator app and sessions, audited and mailed", async () => {
    const { agent, user } = await signedInAgent(t);
    await t.store.knex('users').where({ id: user.id }).update({ email_verified_at: null });
    await addPasskey(agent);
    await totpOn(agent);
    const link = await makeEmailLink(t, user.id, 'reset', null);
    expect((await new Agent(t).form('/reset-password', { token: link, password: 'the mailbox owner 1' })).status).toBe(200);
    const after = (await t.store.users.getUser(user.id))!;
    expect(after.emailVerifiedAt).toBe(t.clock.now());
    expect([await t.store.passkeys.listPasskeys(user.id), await t.store.authenticatorApp.getTotp(user.id)]).toEqual([[], undefined]);
    expect((await agent.fetch('/api/account')).status).toBe(401);
    expect(audited.filter(([e, f]) => e === 'address_proven' && (f as { userId: number }).userId === user.id).map(([, f]) => f)).toEqual([
      { userId: user.id, by: 'reset', passkeys: 1, upstreamIdentities: 0, authenticatorApp: true, endedSessions: 1 },
    ]);
  });

  it("a verification link followed outside the account's own session proves nothing: it asks to sign in to that account, then works", async () => {
    const user = await makeUser(t);
    await t.store.knex('users').where({ id: user.id }).update({ email_verified_at: null });
    const link = await makeEmailLink(t, user.id, 'verify', user.email);
    // The victim of a pre-hijacking, following the mail the attacker's sign-up sent her.
    const elsewhere = new Agent(t);
    const asked = await elsewhere.fetch(`/verify-email?token=${link}`);
    const back = encodeURIComponent(`/verify-email?token=${link}`);
    expect([asked.status, /<p><a class="button" id="forward" href="([^"]+)">Sign in to confirm<\/a><\/p>/.exec(await asked.text())?.[1]]).toEqual([200, `/signin?return_to=${back}`]);
    expect((await t.store.users.getUser(user.id))!.emailVerifiedAt).toBeNull();
    // Signed in to another account, it asks for a sign-in again.
    const other = (await signedInAgent(t)).agent;
    expect(/id="forward" href="([^"]+)"/.exec(await (await other.fetch(`/verify-email?token=${link}`)).text())?.[1]).toBe(`/signin?prompt=login&amp;return_to=${back}`);
    expect((await t.store.users.getUser(user.id))!.emailVerifiedAt).toBeNull();
    // Signed in to the account, through the sign-in page's way back, the same link works.
    const signIn = await elsewhere.form('/signin', { name: user.name, password: TEST_PASSWORD, return_to: `/verify-email?token=${link}` });
    expect([signIn.status, signIn.headers.get('location')]).toEqual([303, `/verify-email?token=${link}`]);
    expect((await elsewhere.fetch(`/verify-email?token=${link}`)).status).toBe(200);
    expect((await t.store.users.getUser(user.id))!.emailVerifiedAt).toBe(t.clock.now());
  });

  it('a verification link followed in the account\'s own session removes nothing', async () => {
    const { agent, user } = await signedInAgent(t);
    await t.store.knex('users').where({ id: user.id }).update({ email_verified_at: null });
    await addPasskey(agent);
    const link = await makeEmailLink(t, user.id, 'verify', user.email);
    expect((await agent.fetch(`/verify-email?token=${link}`)).status).toBe(200);
    expect(await t.store.passkeys.listPasskeys(user.id)).toHaveLength(1);
    expect((await agent.fetch('/api/account')).status).toBe(200);
  });
});

describe('a request in flight across a security event (the second review)', () => {
  it('a slow request read before a reset neither acts nor brings its ended session back', async () => {
    const { agent, user } = await signedInAgent(t);
    await t.store.knex('users').where({ id: user.id }).update({ email_verified_at: null });
    const pub = new URL(t.config.publicUrl);
    const key = new SoftAuthenticator({ rpId: pub.hostname, origin: pub.origin });
    const options = (await (await agent.json('POST', '/api/account/passkeys/options', { password: TEST_PASSWORD })).json()) as Parameters<SoftAuthenticator['register']>[0];
    const body = Buffer.from(JSON.stringify({ credential: key.register(options) }));
    const base = new URL(t.baseUrl);
    const csrf = await agent.csrf();
    // The attacker's request: read its session, then holds back the body's last byte.
    let finish!: () => void;
    const answered = new Promise<number>((resolve, reject) => {
      const req = http.request(
        { host: base.hostname, port: base.port, path: '/api/account/passkeys', method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Length': body.length, Cookie: agent.cookieHeader(), 'X-CSRF-Token': csrf } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        },
      );
      req.on('error', reject);
      req.write(body.subarray(0, body.length - 1));
      finish = () => req.end(body.subarray(body.length - 1));
    });
    await new Promise((r) => setTimeout(r, 300));
    // The mailbox's owner resets: the attacker's session ends.
    const link = await makeEmailLink(t, user.id, 'reset', null);
    expect((await new Agent(t).form('/reset-password', { token: link, password: 'the mailbox owner 1' })).status).toBe(200);
    expect((await agent.fetch('/api/account')).status).toBe(401);
    finish();
    expect(await answered).toBe(401);
    expect(await t.store.passkeys.listPasskeys(user.id)).toEqual([]);
    expect((await agent.fetch('/api/account')).status).toBe(401);
  });
});
