/**
 * How the person signed in, told to apps: the ID token's `amr` and `acr` after a password, a
 * password and an authenticator-app code, and a passkey; `acr_values=2` at /oauth sending a
 * one-factor session of a person with a second factor to sign in again, once.
 */
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import { TOTP, URI } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRecord } from '../../src/domain/users.js';
import { SoftAuthenticator } from '../fixtures/soft-authenticator.js';
import { Agent, makeClient, makeCode, makeUser, signedInAgent, startServer, TEST_PASSWORD, tokenRequest, type TestClient, type TestServer } from '../helpers.js';

let t: TestServer;
beforeAll(async () => {
  t = await startServer({}, { limits: { signInIp: { points: 1000, seconds: 600 } } });
});
afterAll(async () => t?.close());

const CALLBACK = 'https://client.example/callback';

async function appOf(): Promise<TestClient> {
  return makeClient(t, (await makeUser(t)).id);
}

/** The ID token's claims for a code. */
async function idTokenOf(client: TestClient, code: string): Promise<JWTPayload> {
  const res = await tokenRequest(t, { grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: client.clientSecret });
  expect(res.status).toBe(200);
  const { id_token: idToken } = (await res.json()) as { id_token: string };
  const keys = (await (await fetch(`${t.baseUrl}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
  return (await jwtVerify(idToken, createLocalJWKSet(keys), { currentDate: new Date(t.clock.now()) })).payload;
}

/** The authorization request's address. */
function oauthPath(client: TestClient, extra: Record<string, string> = {}): string {
  return `/oauth?${new URLSearchParams({ client_id: client.clientId, redirect_uri: CALLBACK, scope: 'openid', state: 's', response_type: 'code', ...extra })}`;
}

/** Consents (the page shows: a new app) and returns the code. */
async function consent(agent: Agent, path: string): Promise<string> {
  const page = await agent.fetch(path);
  expect(page.status).toBe(200);
  const fields = Object.fromEntries(new URL(path, t.baseUrl).searchParams);
  const res = await agent.form('/oauth', { ...fields, decision: 'authorize' });
  expect(res.status).toBe(302);
  return new URL(res.headers.get('location')!).searchParams.get('code')!;
}

/** Switches the authenticator app on for the agent's user (the session stays one-factor). */
async function switchOnTotp(agent: Agent): Promise<TOTP> {
  const { uri } = (await (await agent.json('POST', '/api/account/totp', { password: TEST_PASSWORD })).json()) as { uri: string };
  const totp = URI.parse(uri) as TOTP;
  expect((await agent.json('POST', '/api/account/totp/confirm', { code: totp.generate({ timestamp: t.clock.now() }) })).status).toBe(200);
  t.clock.advance(30_000);
  return totp;
}

/** Password and authenticator-app code, on the way to `returnTo`. */
async function signInWithCode(user: UserRecord, totp: TOTP, returnTo: string, agent = new Agent(t)): Promise<Agent> {
  const password = await agent.form('/signin', { name: user.name, password: TEST_PASSWORD, return_to: returnTo });
  expect([password.status, password.headers.get('location')]).toEqual([303, '/signin/otp']);
  const code = await agent.form('/signin/otp', { otp: totp.generate({ timestamp: t.clock.now() }) });
  expect([code.status, code.headers.get('location')]).toEqual([303, returnTo]);
  return agent;
}

function softKey(): SoftAuthenticator {
  const url = new URL(t.config.publicUrl);
  return new SoftAuthenticator({ rpId: url.hostname, origin: url.origin });
}

describe('the ID token says how the person signed in', () => {
  it('password and authenticator-app code: amr pwd otp mfa, acr 2', async () => {
    const { agent, user } = await signedInAgent(t);
    const totp = await switchOnTotp(agent);
    const client = await appOf();
    const path = oauthPath(client);
    const fresh = await signInWithCode(user, totp, path);
    const claims = await idTokenOf(client, await consent(fresh, path));
    expect([claims.amr, claims.acr]).toEqual([['pwd', 'otp', 'mfa'], '2']);
  });

  it('a passkey with user verification: amr hwk user mfa, acr 2', async () => {
    const { agent: owner } = await signedInAgent(t);
    const key = softKey();
    const options = (await (await owner.json('POST', '/api/account/passkeys/options', { password: TEST_PASSWORD })).json()) as { challenge: string; user: { id: string } };
    expect((await owner.json('POST', '/api/account/passkeys', { credential: key.register(options) })).status).toBe(201);
    const agent = new Agent(t);
    const challenge = (await (await agent.json('POST', '/api/session/passkey/options')).json()) as { challenge: string; user: { id: string } };
    expect((await agent.json('POST', '/api/session/passkey', { credential: key.authenticate(challenge) })).status).toBe(200);
    const client = await appOf();
    const claims = await idTokenOf(client, await consent(agent, oauthPath(client)));
    expect([claims.amr, claims.acr]).toEqual([['hwk', 'user', 'mfa'], '2']);
  });

  it('a code the operator issued (no sign-in behind it): neither amr nor acr', async () => {
    const user = await makeUser(t);
    const client = await appOf();
    const claims = await idTokenOf(client, await makeCode(t, { userId: user.id, clientId: client.clientId, scope: 'openid' }));
    expect(Object.keys(claims).sort()).toEqual(['aud', 'auth_time', 'azp', 'exp', 'iat', 'iss', 'sub']);
  });
});

describe('acr_values at /oauth', () => {
  it('2, one-factor session, authenticator app on: signs in again with the code, then the ID token says 2', async () => {
    const { agent, user } = await signedInAgent(t);
    const totp = await switchOnTotp(agent);
    const client = await appOf();
    const path = oauthPath(client, { acr_values: '2' });
    const res = await agent.fetch(path);
    expect([res.status, res.headers.get('location')]).toEqual([302, `/signin?prompt=login&return_to=${encodeURIComponent(path)}`]);
    // prompt=none cannot ask: login_required.
    const silent = await agent.fetch(oauthPath(client, { acr_values: '2', prompt: 'none' }));
    expect(Object.fromEntries(new URL(silent.headers.get('location')!).searchParams)).toEqual({
      error: 'login_required',
      error_description: 'The user is not signed in and prompt=none forbids asking',
      state: 's',
      iss: t.config.publicUrl,
    });
    await signInWithCode(user, totp, path, agent);
    const claims = await idTokenOf(client, await consent(agent, path));
    expect([claims.amr, claims.acr]).toEqual([['pwd', 'otp', 'mfa'], '2']);
  });

  it('2, one-factor session, authenticator app on: POST /oauth straight away goes to sign in again, never a code', async () => {
    const { agent } = await signedInAgent(t);
    await switchOnTotp(agent);
    const client = await appOf();
    const path = oauthPath(client, { acr_values: '2' });
    const fields = Object.fromEntries(new URL(path, t.baseUrl).searchParams);
    const res = await agent.form('/oauth', { ...fields, decision: 'authorize' });
    expect([res.status, res.headers.get('location')]).toEqual([302, `/signin?prompt=login&return_to=${encodeURIComponent(path)}`]);
    const silent = await agent.form('/oauth', { ...fields, prompt: 'none', decision: 'authorize' });
    expect([silent.status, silent.headers.get('location')]).toEqual([
      302,
      `${CALLBACK}?error=login_required&error_description=The+user+is+not+signed+in+and+prompt%3Dnone+forbids+asking&state=s&iss=${encodeURIComponent(t.config.publicUrl)}`,
    ]);
  });

  it('2, and the fresh sign-in again reached one factor (password of a person with a passkey): goes on, once, with acr 1', async () => {
    const { agent: owner, user } = await signedInAgent(t);
    const key = softKey();
    const options = (await (await owner.json('POST', '/api/account/passkeys/options', { password: TEST_PASSWORD })).json()) as { challenge: string; user: { id: string } };
    expect((await owner.json('POST', '/api/account/passkeys', { credential: key.register(options) })).status).toBe(201);
    const client = await appOf();
    const path = oauthPath(client, { acr_values: '2' });
    expect((await owner.fetch(path)).headers.get('location')).toBe(`/signin?prompt=login&return_to=${encodeURIComponent(path)}`);
    const signIn = await owner.form('/signin', { name: user.name, password: TEST_PASSWORD, return_to: path });
    expect([signIn.status, signIn.headers.get('location')]).toEqual([303, path]);
    const claims = await idTokenOf(client, await consent(owner, path));
    expect([claims.amr, claims.acr]).toEqual([['pwd'], '1']);
    // The fresh sign-in counted once: the next such request asks again.
    expect((await owner.fetch(path)).headers.get('location')).toBe(`/signin?prompt=login&return_to=${encodeURIComponent(path)}`);
  });

  it('2 for a person with no second factor, or 1 among the values: the code comes, with acr 1', async () => {
    const { agent } = await signedInAgent(t);
    const client = await appOf();
    const claims = await idTokenOf(client, await consent(agent, oauthPath(client, { acr_values: '2' })));
    expect([claims.amr, claims.acr]).toEqual([['pwd'], '1']);

    const other = await signedInAgent(t);
    await switchOnTotp(other.agent);
    const either = await idTokenOf(client, await consent(other.agent, oauthPath(client, { acr_values: '1 2 urn:unknown' })));
    expect([either.amr, either.acr]).toEqual([['pwd'], '1']);
  });
});
