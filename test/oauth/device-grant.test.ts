/**
 * The device authorization grant (RFC 8628; docs/oauth.md#devices-without-a-browser) over HTTP
 * against the real app: POST /api/oauth/device_authorization, the person's decision on /device,
 * and the token endpoint's device_code grant with RFC 8628 3.5's answers; the user-code guessing
 * limits in parallel bursts, across addresses and across accounts.
 */
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerApp, type RegisteredApp } from '../oidc-flow.js';
import { Agent, oauthErrorBody, signedInAgent, startServer, tokenRequest, type TestServer } from '../helpers.js';
import type { UserRecord } from '../../src/domain/users.js';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const ALL_GRANTS = ['authorization_code', 'refresh_token', DEVICE_GRANT];
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;

const MSG = {
  notAllowed: 'This app may not use the device flow: its grant_types lack urn:ietf:params:oauth:grant-type:device_code',
  pending: 'The person has not approved or denied this device yet',
  denied: 'The person denied this device',
  expired: 'Device code has expired',
  used: 'Device code has already been used',
  invalid: 'Invalid device code',
  required: 'Body field device_code is required',
} as const;

let t: TestServer;
beforeAll(async () => {
  t = await startServer({ TRUST_PROXY: '127.0.0.1' }, { limits: { signInIp: { points: 1000, seconds: 600 }, deviceStartIp: { points: 1000, seconds: 600 } } });
  // The verification URIs and the issuer are PUBLIC_URL's: this server's own address.
  t.config.publicUrl = t.baseUrl;
});
afterAll(async () => {
  await t?.close();
});

interface DeviceAnswer {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

function credentials(app: RegisteredApp): Record<string, string> {
  return app.client_secret === undefined ? { client_id: app.client_id } : { client_id: app.client_id, client_secret: app.client_secret };
}

function post(path: string, params: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${t.baseUrl}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(params) });
}

async function newApp(grantTypes: string[] = ALL_GRANTS, options: { public?: boolean } = {}): Promise<{ app: RegisteredApp; owner: Agent }> {
  const { agent } = await signedInAgent(t);
  const app = await registerApp(agent, { name: 'TV Game', redirect_uris: ['https://tv.example/cb'], grant_types: grantTypes, ...(options.public ? { public: true } : {}) });
  return { app, owner: agent };
}

async function start(app: RegisteredApp, scope = 'openid profile offline_access'): Promise<DeviceAnswer> {
  const res = await post('/api/oauth/device_authorization', { ...credentials(app), scope });
  const body = (await res.json()) as DeviceAnswer;
  expect({ status: res.status, cacheControl: res.headers.get('cache-control'), pragma: res.headers.get('pragma'), body }).toEqual({
    status: 200,
    cacheControl: 'no-store',
    pragma: 'no-cache',
    body: {
      device_code: expect.stringMatching(TOKEN),
      user_code: expect.stringMatching(USER_CODE),
      verification_uri: `${t.baseUrl}/device`,
      verification_uri_complete: `${t.baseUrl}/device?user_code=${body.user_code}`,
      expires_in: 600,
      interval: 5,
    },
  });
  return body;
}

function poll(app: RegisteredApp, deviceCode: string | undefined): Promise<Response> {
  return tokenRequest(t, { grant_type: DEVICE_GRANT, ...(deviceCode === undefined ? {} : { device_code: deviceCode }), ...credentials(app) });
}

async function expectOAuthError(res: Response, status: number, error: string, message: string): Promise<void> {
  const body: unknown = await res.json();
  // RFC 6749 5.2's error_description has no `"`: the message's quotes become `'` there.
  const description = message.replaceAll('"', "'");
  expect({ status: res.status, cacheControl: res.headers.get('cache-control'), body }).toEqual({ status, cacheControl: 'no-store', body: oauthErrorBody(error, message, description) });
}

/** The person at /device decides, through the page's form (its CSRF token included). */
async function decide(agent: Agent, userCode: string, decision: 'approve' | 'deny', headers: Record<string, string> = {}): Promise<Response> {
  return agent.fetch('/device', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ _csrf: await agent.csrf(), user_code: userCode, decision }),
    redirect: 'manual',
  });
}

/** The person looks a code up on /device (no decision). */
async function lookUp(agent: Agent, userCode: string, headers: Record<string, string> = {}): Promise<Response> {
  return agent.fetch('/device', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ _csrf: await agent.csrf(), user_code: userCode }),
    redirect: 'manual',
  });
}

/** A device authorization approved by a new person; the device has not polled yet. */
async function approved(app: RegisteredApp, scope?: string): Promise<{ device: DeviceAnswer; agent: Agent; user: UserRecord }> {
  const device = await start(app, scope);
  const { agent, user } = await signedInAgent(t);
  const res = await decide(agent, device.user_code, 'approve');
  expect(res.status).toBe(200);
  return { device, agent, user };
}

describe('discovery', () => {
  it('both metadata documents name the device authorization endpoint and the three grants', async () => {
    for (const path of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server']) {
      const doc = (await (await fetch(`${t.baseUrl}${path}`)).json()) as Record<string, unknown>;
      expect({ endpoint: doc.device_authorization_endpoint, grants: doc.grant_types_supported }).toEqual({
        endpoint: `${t.baseUrl}/api/oauth/device_authorization`,
        grants: ['authorization_code', 'refresh_token', DEVICE_GRANT],
      });
    }
  });
});

describe('POST /api/oauth/device_authorization', () => {
  it('answers a confidential app (secret in the body or HTTP Basic) and a public app (client id alone)', async () => {
    const { app } = await newApp();
    await start(app);
    const basic = `Basic ${Buffer.from(`${app.client_id}:${app.client_secret!}`).toString('base64')}`;
    const res = await post('/api/oauth/device_authorization', { scope: 'userinfo' }, { Authorization: basic });
    expect(res.status).toBe(200);
    const { app: pub } = await newApp(ALL_GRANTS, { public: true });
    const a = await start(pub);
    const b = await start(pub);
    expect(a.user_code).not.toBe(b.user_code);
    expect(a.device_code).not.toBe(b.device_code);
  });

  it('stores neither code in the clear', async () => {
    const { app } = await newApp();
    const device = await start(app);
    const rows = (await t.store.knex('device_authorizations').select()) as Record<string, unknown>[];
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(device.device_code);
    expect(dump).not.toContain(device.user_code);
    expect(dump).not.toContain(device.user_code.replace('-', ''));
  });

  it('refuses an app without the device grant, an unknown client, a wrong secret and bad scopes', async () => {
    const { app } = await newApp(['authorization_code']);
    await expectOAuthError(await post('/api/oauth/device_authorization', { ...credentials(app), scope: 'openid' }), 400, 'unauthorized_client', MSG.notAllowed);
    await expectOAuthError(await post('/api/oauth/device_authorization', { client_id: 'nobody', client_secret: 'x', scope: 'openid' }), 401, 'invalid_client', 'Unknown client');
    const { app: ok } = await newApp();
    await expectOAuthError(await post('/api/oauth/device_authorization', { client_id: ok.client_id, client_secret: 'wrong', scope: 'openid' }), 401, 'invalid_client', 'Invalid client secret');
    await expectOAuthError(await post('/api/oauth/device_authorization', { ...credentials(ok), scope: 'profile' }), 400, 'invalid_scope', 'The profile scope requires the openid scope');
    await expectOAuthError(await post('/api/oauth/device_authorization', { ...credentials(ok), scope: 'games' }), 400, 'invalid_scope', 'Unknown scope "games"');
    await expectOAuthError(await post('/api/oauth/device_authorization', { ...credentials(ok) }), 400, 'invalid_scope', 'No scope requested');
  });
});

describe('the device_code grant', () => {
  it('pending, slow_down (+5 s each time), pending again after the interval, then the tokens once', async () => {
    const { app } = await newApp();
    const device = await start(app);
    await expectOAuthError(await poll(app, device.device_code), 400, 'authorization_pending', MSG.pending);
    await expectOAuthError(await poll(app, device.device_code), 400, 'slow_down', 'Polled too fast; wait 10 seconds between requests from now on');
    t.clock.advance(5_000);
    await expectOAuthError(await poll(app, device.device_code), 400, 'slow_down', 'Polled too fast; wait 15 seconds between requests from now on');
    t.clock.advance(15_000);
    await expectOAuthError(await poll(app, device.device_code), 400, 'authorization_pending', MSG.pending);

    const { agent, user } = await signedInAgent(t);
    expect((await decide(agent, device.user_code.toLowerCase().replace('-', ' '), 'approve')).status).toBe(200);
    t.clock.advance(15_000);
    const res = await poll(app, device.device_code);
    const body = (await res.json()) as Record<string, string>;
    expect({ status: res.status, cacheControl: res.headers.get('cache-control'), body }).toEqual({
      status: 200,
      cacheControl: 'no-store',
      body: {
        access_token: expect.stringMatching(TOKEN),
        token_type: 'Bearer',
        expires_in: 600,
        refresh_token: expect.stringMatching(TOKEN),
        id_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      },
    });
    const jwks = (await (await fetch(`${t.baseUrl}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
    const { payload } = await jwtVerify(body.id_token!, createLocalJWKSet(jwks), { issuer: t.baseUrl, audience: app.client_id, currentDate: new Date(t.clock.now()) });
    expect(payload).toMatchObject({ sub: String(user.id), azp: app.client_id, amr: ['pwd'], acr: '1', preferred_username: user.name });
    expect(payload.nonce).toBeUndefined();
    const userinfo = await fetch(`${t.baseUrl}/api/oauth/userinfo`, { headers: { Authorization: `Bearer ${body.access_token}` } });
    expect(await userinfo.json()).toMatchObject({ sub: String(user.id) });

    // Answered once; the refresh token works and rotates.
    t.clock.advance(15_000);
    await expectOAuthError(await poll(app, device.device_code), 400, 'invalid_grant', MSG.used);
    const refreshed = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: body.refresh_token!, ...credentials(app) });
    expect(refreshed.status).toBe(200);

    // The approval is remembered consent: the app is among the person's connected apps, and revoking it ends the tokens.
    const { grants } = (await (await agent.fetch('/api/account/grants')).json()) as { grants: { client_id: string; scopes: string[] }[] };
    expect(grants.map((g) => [g.client_id, g.scopes])).toEqual([[app.client_id, ['openid', 'profile', 'offline_access']]]);
    expect((await agent.json('DELETE', `/api/account/grants/${app.client_id}`)).status).toBe(204);
    const refreshedBody = (await refreshed.json()) as Record<string, string>;
    await expectOAuthError(
      await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: refreshedBody.refresh_token!, ...credentials(app) }),
      400,
      'invalid_grant',
      'Refresh token has been revoked',
    );
  });

  it('no refresh token for an app without the refresh grant (offline_access left out), no ID token without openid', async () => {
    const { app } = await newApp(['authorization_code', DEVICE_GRANT], { public: true });
    const { device } = await approved(app, 'userinfo offline_access');
    const res = await poll(app, device.device_code);
    expect({ status: res.status, body: await res.json() }).toEqual({ status: 200, body: { access_token: expect.stringMatching(TOKEN), token_type: 'Bearer', expires_in: 600 } });
  });

  it('denied: access_denied, and so on every later poll', async () => {
    const { app } = await newApp();
    const device = await start(app);
    const { agent } = await signedInAgent(t);
    expect((await decide(agent, device.user_code, 'deny')).status).toBe(200);
    await expectOAuthError(await poll(app, device.device_code), 400, 'access_denied', MSG.denied);
    t.clock.advance(10_000);
    await expectOAuthError(await poll(app, device.device_code), 400, 'access_denied', MSG.denied);
    // Decided: approving it afterwards changes nothing.
    expect((await decide(agent, device.user_code, 'approve')).status).toBe(400);
    t.clock.advance(10_000);
    await expectOAuthError(await poll(app, device.device_code), 400, 'access_denied', MSG.denied);
  });

  it('expired after 600 seconds, approved or not', async () => {
    const { app } = await newApp();
    const device = await start(app);
    const { device: other } = await approved(app);
    t.clock.advance(600_000);
    await expectOAuthError(await poll(app, device.device_code), 400, 'expired_token', MSG.expired);
    await expectOAuthError(await poll(app, other.device_code), 400, 'expired_token', MSG.expired);
  });

  it('refuses a missing, unknown or other app\'s device code, and an app without the grant', async () => {
    const { app } = await newApp();
    const { app: other } = await newApp();
    const device = await start(app);
    await expectOAuthError(await poll(app, undefined), 400, 'invalid_request', MSG.required);
    await expectOAuthError(await poll(app, 'x'.repeat(43)), 400, 'invalid_grant', MSG.invalid);
    await expectOAuthError(await poll(other, device.device_code), 400, 'invalid_grant', MSG.invalid);
    const { app: plain } = await newApp(['authorization_code']);
    await expectOAuthError(await poll(plain, device.device_code), 400, 'unauthorized_client', MSG.notAllowed);
  });

  it('a burst of 12 parallel polls of an approved code: exactly one gets tokens', async () => {
    const { app } = await newApp();
    const { device } = await approved(app);
    const answers = await Promise.all(Array.from({ length: 12 }, () => poll(app, device.device_code)));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([200, ...Array(11).fill(400)]);
    const refused = await Promise.all(answers.filter((r) => r.status === 400).map((r) => r.json()));
    expect(new Set(refused.map((b) => JSON.stringify(b)))).toEqual(new Set([JSON.stringify(oauthErrorBody('invalid_grant', MSG.used))]));
  });

  it('two people deciding one code at once: exactly one decision counts', async () => {
    const { app } = await newApp();
    const device = await start(app);
    const people = await Promise.all([signedInAgent(t), signedInAgent(t), signedInAgent(t), signedInAgent(t)]);
    const answers = await Promise.all(people.map(({ agent }, i) => decide(agent, device.user_code, i % 2 === 0 ? 'approve' : 'deny')));
    expect(answers.map((r) => r.status).filter((s) => s === 200)).toHaveLength(1);
    expect(answers.map((r) => r.status).filter((s) => s === 400)).toHaveLength(3);
  });
});

describe('guessing user codes on /device', () => {
  const wrong = (i: number) => `BBBB-${'BCDFGHJKLMNPQRSTVWXZ'[Math.floor(i / 20) % 20]!}${'BCDFGHJKLMNPQRSTVWXZ'[i % 20]!}BB`;

  it('per address: of 25 parallel wrong codes from one address at most 10 are checked, and then even the right code is refused (429)', async () => {
    const { app } = await newApp();
    const device = await start(app);
    const address = { 'X-Forwarded-For': '203.0.113.10' };
    // Several accounts, one address: the address is what is counted.
    const people = await Promise.all(Array.from({ length: 5 }, () => signedInAgent(t)));
    const answers = await Promise.all(Array.from({ length: 25 }, (_, i) => lookUp(people[i % 5]!.agent, wrong(i), address)));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 400).length).toBeLessThanOrEqual(10);
    expect(statuses.filter((s) => s === 400).length + statuses.filter((s) => s === 429).length).toBe(25);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(15);
    expect((await lookUp(people[0]!.agent, device.user_code, address)).status).toBe(429);
    // Another address is not affected.
    expect((await lookUp(people[0]!.agent, device.user_code, { 'X-Forwarded-For': '203.0.113.11' })).status).toBe(200);
  });

  it('per account: wrong codes from many addresses count against the account', async () => {
    const { app } = await newApp();
    const device = await start(app);
    const { agent } = await signedInAgent(t);
    const answers = await Promise.all(Array.from({ length: 14 }, (_, i) => lookUp(agent, wrong(100 + i), { 'X-Forwarded-For': `198.51.${i}.1` })));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 400).length).toBeLessThanOrEqual(10);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(4);
    expect((await lookUp(agent, device.user_code, { 'X-Forwarded-For': '198.51.200.1' })).status).toBe(429);
    // Another person at a fresh address still gets through.
    const { agent: other } = await signedInAgent(t);
    expect((await lookUp(other, device.user_code, { 'X-Forwarded-For': '198.51.201.1' })).status).toBe(200);
  });

  it('right codes and typos do not count: a person who types their code right again and again is never limited', async () => {
    const { app } = await newApp();
    const device = await start(app);
    const { agent } = await signedInAgent(t);
    const address = { 'X-Forwarded-For': '192.0.2.50' };
    for (let i = 0; i < 15; i++) expect((await lookUp(agent, device.user_code, address)).status).toBe(200);
    for (let i = 0; i < 15; i++) expect((await lookUp(agent, 'ABC', address)).status).toBe(400);
    expect((await lookUp(agent, device.user_code, address)).status).toBe(200);
  });
});
