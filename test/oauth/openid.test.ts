/**
 * OpenID Connect on top of the traditional flow: discovery, the JWKS, the ID token, UserInfo,
 * prompt=login and max_age with auth_time, and the scope rules of openid and profile.
 */
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, makeClient, makeUser, startServer, TEST_PASSWORD, tokenRequest, type TestClient, type TestServer } from '../helpers.js';
import { consentFields } from '../oidc-flow.js';
import type { UserRecord } from '../../src/domain/users.js';

let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(async () => t?.close());

const CALLBACK = 'https://client.example/callback';
const seconds = (ms: number): number => Math.floor(ms / 1000);

function query(location: string | null): Record<string, string> {
  return Object.fromEntries(new URL(location!).searchParams);
}

async function jwks(): Promise<JSONWebKeySet> {
  return (await (await fetch(`${t.baseUrl}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
}

interface Flow {
  user: UserRecord;
  agent: Agent;
  client: TestClient;
  signedInAt: number;
}

/** A user signed in (at the test clock's time) on an Agent, and a confidential app. */
async function setup(): Promise<Flow> {
  const owner = await makeUser(t);
  const client = await makeClient(t, owner.id);
  const user = await makeUser(t);
  const agent = new Agent(t);
  const signedInAt = t.clock.now();
  await agent.signIn(user);
  return { user, agent, client, signedInAt };
}

/** Consents on the page and redeems the code; returns the token response. */
async function authorize(flow: Flow, params: Record<string, string>): Promise<Record<string, unknown>> {
  const fields = { response_type: 'code', client_id: flow.client.clientId, redirect_uri: CALLBACK, ...params };
  const page = await flow.agent.fetch(`/oauth?${new URLSearchParams(fields)}`);
  expect(page.status).toBeOneOf([200, 302]);
  // A consent given before is remembered: the code comes without the page.
  const res = page.status === 302 ? page : await flow.agent.form('/oauth', { ...fields, decision: 'authorize' });
  expect(res.status).toBe(302);
  const { code } = query(res.headers.get('location'));
  const token = await tokenRequest(t, { grant_type: 'authorization_code', code: code!, client_id: flow.client.clientId, client_secret: flow.client.clientSecret });
  expect(token.status).toBe(200);
  return (await token.json()) as Record<string, unknown>;
}

describe('discovery', () => {
  it('publishes one document at both well-known addresses, with the OpenID Provider fields', async () => {
    const issuer = t.config.publicUrl;
    const oidc = await fetch(`${t.baseUrl}/.well-known/openid-configuration`, { headers: { Origin: 'https://rp.example' } });
    const rfc8414 = await fetch(`${t.baseUrl}/.well-known/oauth-authorization-server`);
    expect(oidc.status).toBe(200);
    expect(oidc.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(oidc.headers.get('access-control-allow-origin')).toBe('*');
    const body = (await oidc.json()) as Record<string, unknown>;
    // The same document as RFC 8414's (its every field: test/oauth/metadata.test.ts),
    // but for userinfo_endpoint, which OAuth clients read whois from there.
    expect(body).toEqual({ ...((await rfc8414.json()) as Record<string, unknown>), userinfo_endpoint: `${issuer}/api/oauth/userinfo` });
    expect(body.jwks_uri).toBe(`${issuer}/.well-known/jwks.json`);
    expect(body.end_session_endpoint).toBe(`${issuer}/oauth/logout`);
  });

  it('publishes the signing key as an RSA public JWK, cacheable, readable by any origin', async () => {
    const res = await fetch(`${t.baseUrl}/.well-known/jwks.json`, { headers: { Origin: 'https://rp.example' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, no-cache');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const { keys } = (await res.json()) as { keys: Record<string, string>[] };
    expect(keys).toHaveLength(1);
    expect(Object.keys(keys[0]!).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    expect(keys[0]).toMatchObject({ kty: 'RSA', e: 'AQAB', use: 'sig', alg: 'RS256' });
    // 2048-bit modulus: 256 bytes, 342 base64url characters.
    expect(keys[0]!.n).toHaveLength(342);
  });
});

describe('the ID token', () => {
  it('comes with the openid scope: RS256, the published kid, and exactly the claims of the granted scopes', async () => {
    const flow = await setup();
    t.clock.advance(5_000);
    const body = await authorize(flow, { scope: 'openid profile email', nonce: 'n-0S6_WzA2Mj', state: 's' });
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'id_token', 'token_type']);
    const idToken = body.id_token as string;
    const header = decodeProtectedHeader(idToken);
    const keys = await jwks();
    expect(header).toEqual({ alg: 'RS256', kid: keys.keys[0]!.kid, typ: 'JWT' });
    const { payload } = await jwtVerify(idToken, createLocalJWKSet(keys), {
      issuer: t.config.publicUrl,
      audience: flow.client.clientId,
      currentDate: new Date(t.clock.now()),
    });
    const iat = seconds(t.clock.now());
    expect(payload).toEqual({
      iss: t.config.publicUrl,
      sub: String(flow.user.id),
      aud: flow.client.clientId,
      exp: iat + 600,
      iat,
      auth_time: seconds(flow.signedInAt),
      // Signed in with a password: one factor.
      amr: ['pwd'],
      acr: '1',
      nonce: 'n-0S6_WzA2Mj',
      azp: flow.client.clientId,
      name: flow.user.name,
      preferred_username: flow.user.name,
      profile: `${t.config.publicUrl}/users/${flow.user.id}`,
      picture: `${t.config.publicUrl}/pfp/large/${flow.user.id}.webp`,
      updated_at: seconds(flow.user.createdAt),
      email: flow.user.email,
      email_verified: true,
    });
  });

  it('has no nonce when the request had none, and only the base claims with openid alone', async () => {
    const flow = await setup();
    const body = await authorize(flow, { scope: 'openid' });
    const { payload } = await jwtVerify(body.id_token as string, createLocalJWKSet(await jwks()), { currentDate: new Date(t.clock.now()) });
    expect(Object.keys(payload).sort()).toEqual(['acr', 'amr', 'aud', 'auth_time', 'azp', 'exp', 'iat', 'iss', 'sub']);
  });

  it('is not in the response without openid: the three fields, as always', async () => {
    const flow = await setup();
    const body = await authorize(flow, { scope: 'userinfo email', nonce: 'ignored' });
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'token_type']);
  });

  it('names the current picture and when it changed', async () => {
    const flow = await setup();
    const ts = t.clock.now() + 1000;
    expect(await t.store.users.swapPfpTimestamp(flow.user.id, null, ts)).toBe(true);
    const body = await authorize(flow, { scope: 'openid profile' });
    const { payload } = await jwtVerify(body.id_token as string, createLocalJWKSet(await jwks()), { currentDate: new Date(t.clock.now()) });
    expect(payload.picture).toBe(`${t.config.publicUrl}/pfp/large/${flow.user.id}-${ts}.webp`);
    expect(payload.updated_at).toBe(seconds(ts));
    // A removal is a change too.
    const removedAt = ts + 5000;
    expect(await t.store.users.swapPfpTimestamp(flow.user.id, ts, null, removedAt)).toBe(true);
    const again = await authorize(flow, { scope: 'openid profile' });
    const second = await jwtVerify(again.id_token as string, createLocalJWKSet(await jwks()), { currentDate: new Date(t.clock.now()) });
    expect(second.payload.picture).toBe(`${t.config.publicUrl}/pfp/large/${flow.user.id}.webp`);
    expect(second.payload.updated_at).toBe(seconds(removedAt));
  });
});

describe('scope rules', () => {
  it('refuses profile without openid, email without userinfo or openid, and a request with neither base scope', async () => {
    const flow = await setup();
    const cases: [string, string][] = [
      ['userinfo profile', 'The profile scope requires the openid scope'],
      ['email', 'The email scope requires the userinfo scope'],
      ['profile', 'The profile scope requires the openid scope'],
    ];
    for (const [scope, description] of cases) {
      const res = await flow.agent.fetch(`/oauth?${new URLSearchParams({ response_type: 'code', client_id: flow.client.clientId, redirect_uri: CALLBACK, scope, state: 'x' })}`);
      expect(res.status).toBe(302);
      expect(query(res.headers.get('location'))).toEqual({ error: 'invalid_scope', error_description: description, state: 'x', iss: t.config.publicUrl });
    }
  });

  it('shows openid and profile on the consent page', async () => {
    const flow = await setup();
    const res = await flow.agent.fetch(`/oauth?${new URLSearchParams({ response_type: 'code', client_id: flow.client.clientId, redirect_uri: CALLBACK, scope: 'openid profile email' })}`);
    const page = await res.text();
    expect(page).toContain('<li data-scope="openid">Sign you in with your account (your user id) <code>openid</code></li>');
    expect(page).toContain('<li data-scope="profile">See your name, profile picture and when you last changed them <code>profile</code></li>');
    expect(page).toContain('<li data-scope="email">See your email address <code>email</code></li>');
  });
});

describe('UserInfo', () => {
  async function token(flow: Flow, scope: string): Promise<string> {
    return (await authorize(flow, { scope })).access_token as string;
  }

  it('answers GET and POST with sub and the claims of the token scopes, uncached', async () => {
    const flow = await setup();
    const full = await token(flow, 'openid profile email');
    for (const method of ['GET', 'POST']) {
      const res = await fetch(`${t.baseUrl}/api/oauth/userinfo`, { method, headers: { Authorization: `Bearer ${full}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await res.json()).toEqual({
        sub: String(flow.user.id),
        name: flow.user.name,
        preferred_username: flow.user.name,
        profile: `${t.config.publicUrl}/users/${flow.user.id}`,
        picture: `${t.config.publicUrl}/pfp/large/${flow.user.id}.webp`,
        updated_at: seconds(flow.user.createdAt),
        email: flow.user.email,
        email_verified: true,
      });
    }
    const bare = await token(flow, 'openid');
    const res = await fetch(`${t.baseUrl}/api/oauth/userinfo`, { headers: { Authorization: `Bearer ${bare}` } });
    expect(await res.json()).toEqual({ sub: String(flow.user.id) });
  });

  it('refuses a token without openid (403 insufficient_scope), and missing, revoked or expired tokens (401)', async () => {
    const flow = await setup();
    const plain = await token(flow, 'userinfo');
    const forbidden = await fetch(`${t.baseUrl}/api/oauth/userinfo`, { headers: { Authorization: `Bearer ${plain}` } });
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get('www-authenticate')).toBe('Bearer realm="whois", error="insufficient_scope", scope="openid"');
    expect(await forbidden.json()).toEqual({ message: 'Access token lacks the openid scope' });

    const missing = await fetch(`${t.baseUrl}/api/oauth/userinfo`);
    expect([missing.status, await missing.json()]).toEqual([401, { message: 'Missing Authorization header' }]);

    const live = await token(flow, 'openid');
    const revoke = await fetch(`${t.baseUrl}/api/oauth/revoke`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: live, client_id: flow.client.clientId, client_secret: flow.client.clientSecret }).toString(),
    });
    expect(revoke.status).toBe(200);
    const revoked = await fetch(`${t.baseUrl}/api/oauth/userinfo`, { headers: { Authorization: `Bearer ${live}` } });
    expect([revoked.status, await revoked.json()]).toEqual([401, { message: 'Access token has been revoked' }]);

    const old = await token(flow, 'openid');
    t.clock.advance(600_000);
    const expired = await fetch(`${t.baseUrl}/api/oauth/userinfo`, { method: 'POST', headers: { Authorization: `Bearer ${old}` } });
    expect([expired.status, await expired.json()]).toEqual([401, { message: 'Access token has expired' }]);
  });
});

describe('prompt=login and max_age', () => {
  const url = (flow: Flow, extra: Record<string, string>): string =>
    `/oauth?${new URLSearchParams({ response_type: 'code', client_id: flow.client.clientId, redirect_uri: CALLBACK, scope: 'openid', ...extra })}`;

  it('prompt=login sends a signed-in person to sign in again; the ID token has that sign-in as auth_time', async () => {
    const flow = await setup();
    const request = url(flow, { prompt: 'login', nonce: 'n1' });
    const first = await flow.agent.fetch(request);
    expect(first.status).toBe(302);
    expect(first.headers.get('location')).toBe(`/signin?prompt=login&return_to=${encodeURIComponent(request)}`);
    // The sign-in page shows its form to the signed-in person instead of sending them on.
    const form = await flow.agent.fetch(first.headers.get('location')!);
    expect(form.status).toBe(200);
    expect(await form.text()).toContain(`<input type="hidden" name="return_to" value="${request.replaceAll('&', '&amp;')}">`);
    t.clock.advance(90_000);
    const signedInAgain = t.clock.now();
    const signIn = await flow.agent.form('/signin', { name: flow.user.name, password: 'test-password-1', return_to: request });
    expect([signIn.status, signIn.headers.get('location')]).toEqual([303, request]);
    // Back at /oauth the sign-in is taken: the consent page, then a code.
    const consent = await flow.agent.fetch(request);
    expect(consent.status).toBe(200);
    const decided = await flow.agent.form('/oauth', { response_type: 'code', client_id: flow.client.clientId, redirect_uri: CALLBACK, scope: 'openid', nonce: 'n1', decision: 'authorize' });
    const { code } = query(decided.headers.get('location'));
    const res = await tokenRequest(t, { grant_type: 'authorization_code', code: code!, client_id: flow.client.clientId, client_secret: flow.client.clientSecret });
    const { id_token } = (await res.json()) as { id_token: string };
    const { payload } = await jwtVerify(id_token, createLocalJWKSet(await jwks()), { currentDate: new Date(t.clock.now()) });
    expect(payload.auth_time).toBe(seconds(signedInAgain));
    expect(payload.nonce).toBe('n1');
    // The sign-in counts once: the same request asks again.
    const again = await flow.agent.fetch(request);
    expect(again.headers.get('location')).toBe(`/signin?prompt=login&return_to=${encodeURIComponent(request)}`);
  });

  it('POST /oauth with prompt=login or max_age=0 from a session signed in earlier: to sign in again, never a code', async () => {
    const flow = await setup();
    t.clock.advance(90_000);
    const base = { client_id: flow.client.clientId, redirect_uri: CALLBACK, scope: 'openid', state: 's', response_type: 'code' };
    for (const asked of [{ prompt: 'login' }, { max_age: '0' }, { prompt: 'consent login', max_age: '60' }] as Record<string, string>[]) {
      const fields = { ...base, ...asked };
      const res = await flow.agent.form('/oauth', { ...fields, decision: 'authorize' });
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe(`/signin?prompt=login&return_to=${encodeURIComponent(`/oauth?${new URLSearchParams(fields)}`)}`);
    }
    // prompt=none cannot ask, as at GET /oauth: login_required.
    const silent = await flow.agent.form('/oauth', { ...base, prompt: 'none', max_age: '0', decision: 'authorize' });
    expect(silent.status).toBe(302);
    expect(silent.headers.get('location')).toBe(
      `${CALLBACK}?error=login_required&error_description=The+user+is+not+signed+in+and+prompt%3Dnone+forbids+asking&state=s&iss=${encodeURIComponent(t.config.publicUrl)}`,
    );
    // Declining needs no new sign-in.
    const cancel = await flow.agent.form('/oauth', { ...base, prompt: 'login', decision: 'cancel' });
    expect(cancel.status).toBe(302);
    expect(cancel.headers.get('location')).toBe(
      `${CALLBACK}?error=access_denied&error_description=The+user+did+not+consent.&state=s&iss=${encodeURIComponent(t.config.publicUrl)}`,
    );
  });

  it("after the sign-in prompt=login and max_age asked for, the consent page's own form gets the code, once", async () => {
    const flow = await setup();
    const request = url(flow, { state: 's', prompt: 'login', max_age: '0' });
    t.clock.advance(90_000);
    const signedInAgain = t.clock.now();
    const signIn = await flow.agent.form('/signin', { name: flow.user.name, password: TEST_PASSWORD, return_to: request });
    expect([signIn.status, signIn.headers.get('location')]).toEqual([303, request]);
    const page = await flow.agent.fetch(request);
    expect(page.status).toBe(200);
    const { _csrf, ...fields } = consentFields(await page.text());
    expect(fields).toEqual({ response_type: 'code', client_id: flow.client.clientId, redirect_uri: CALLBACK, scope: 'openid', state: 's', prompt: 'login', max_age: '0' });
    // The person reads the page for half a minute: the sign-in is older than max_age=0 by then,
    // and still the one the page was shown after.
    t.clock.advance(30_000);
    const decided = await flow.agent.form('/oauth', { _csrf: _csrf!, ...fields, decision: 'authorize' });
    expect(decided.status).toBe(302);
    const { code, ...rest } = query(decided.headers.get('location'));
    expect(rest).toEqual({ state: 's', iss: t.config.publicUrl });
    const token = await tokenRequest(t, { grant_type: 'authorization_code', code: code!, client_id: flow.client.clientId, client_secret: flow.client.clientSecret });
    const { id_token } = (await token.json()) as { id_token: string };
    const { payload } = await jwtVerify(id_token, createLocalJWKSet(await jwks()), { currentDate: new Date(t.clock.now()) });
    expect(payload.auth_time).toBe(seconds(signedInAgain));
    // The sign-in counted once: the same form again asks for a new one.
    const again = await flow.agent.form('/oauth', { _csrf: _csrf!, ...fields, decision: 'authorize' });
    expect(again.status).toBe(302);
    expect(again.headers.get('location')).toBe(`/signin?prompt=login&return_to=${encodeURIComponent(`/oauth?${new URLSearchParams(fields)}`)}`);
  });

  it('max_age: a sign-in older than it asks for a new one; younger, it does not', async () => {
    const flow = await setup();
    // Remembered consent, so a request that needs no sign-in goes straight back with a code.
    await authorize(flow, { scope: 'openid' });
    t.clock.advance(120_000);
    const young = await flow.agent.fetch(url(flow, { max_age: '600' }));
    expect(young.status).toBe(302);
    expect(query(young.headers.get('location')).code).toMatch(/^[\w-]{43}$/);
    const old = await flow.agent.fetch(url(flow, { max_age: '60', state: 's' }));
    expect(old.headers.get('location')).toBe(`/signin?prompt=login&return_to=${encodeURIComponent(url(flow, { max_age: '60', state: 's' }))}`);
    const silent = await flow.agent.fetch(url(flow, { max_age: '60', prompt: 'none', state: 's' }));
    expect(query(silent.headers.get('location'))).toEqual({
      error: 'login_required',
      error_description: 'The user is not signed in and prompt=none forbids asking',
      state: 's',
      iss: t.config.publicUrl,
    });
  });

  it('a signed-out person signing in for the request is not asked twice', async () => {
    const flow = await setup();
    const stranger = new Agent(t);
    const request = url(flow, { prompt: 'login' });
    const first = await stranger.fetch(request);
    expect(first.headers.get('location')).toBe(`/signin?return_to=${encodeURIComponent(request)}`);
    await stranger.form('/signin', { name: flow.user.name, password: 'test-password-1', return_to: request });
    expect((await stranger.fetch(request)).status).toBe(200);
  });

  it('refuses a max_age that is not a number of seconds', async () => {
    const flow = await setup();
    const res = await flow.agent.fetch(url(flow, { max_age: '-1' }));
    expect(res.status).toBe(400);
  });
});

describe('signing keys at rest', () => {
  it('stores the private key only encrypted (a JWE), and the public key without private parts', async () => {
    const rows = await t.store.signingKeys.listSigningKeys();
    expect(rows.length).toBeGreaterThanOrEqual(1);
    for (const row of rows) {
      const jwk = JSON.parse(row.publicJwk) as Record<string, unknown>;
      expect(Object.keys(jwk).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
      const parts = row.privateJwe.split('.');
      expect(parts).toHaveLength(5);
      expect(JSON.parse(Buffer.from(parts[0]!, 'base64url').toString())).toEqual({ alg: 'dir', enc: 'A256GCM' });
      expect(row.privateJwe).not.toContain('"d"');
    }
  });
});

describe('other OpenID Connect parameters', () => {
  it('accepts and ignores display, ui_locales, login_hint, acr_values and response_mode=query', async () => {
    const flow = await setup();
    const res = await flow.agent.fetch(
      `/oauth?${new URLSearchParams({ response_type: 'code', client_id: flow.client.clientId, redirect_uri: CALLBACK, scope: 'openid', display: 'page', ui_locales: 'en', login_hint: 'x', acr_values: '0', response_mode: 'query' })}`,
    );
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('wants to use your account');
  });
});
