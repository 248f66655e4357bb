/**
 * A relying party stays signed in with refresh tokens (issue 40): openid-client v6 against the
 * real server over HTTP, as an app on a server uses it. The user's part (sign-in, the consent form)
 * is driven by an Agent, as in test/oauth/relying-parties.test.ts.
 *
 * The server's clock is the test's (t.clock): each step moves it past an access token's 600
 * seconds. openid-client's own clock is told the same moved time (its clockSkew), so that the
 * library checks the ID token's exp against the time the server lives in, and jose verifies the
 * signature at that time (currentDate), as the other relying-party suites do.
 */
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, makeUser, oauthErrorBody, signedInAgent, startServer, type TestServer } from '../helpers.js';
import { authorizeOverHttp, emailClaims, profileClaims, registerApp, serverSeconds, type RegisteredApp } from '../oidc-flow.js';
import type { UserRecord } from '../../src/domain/users.js';

let t: TestServer;
let issuer: string;
let user: UserRecord;
let userAgent: Agent;
let app: RegisteredApp;
let metadata: oidc.ServerMetadata;

const CALLBACK = 'https://rp.example/callback';
const SCOPE = 'openid userinfo profile email offline_access';
const LIFETIME_MS = 600_000;

beforeAll(async () => {
  t = await startServer();
  // discovery() requires the issuer to be the address it was asked at.
  t.config.publicUrl = t.baseUrl;
  issuer = t.baseUrl;
  const { agent: developer } = await signedInAgent(t);
  app = await registerApp(developer, { name: 'Refreshing RP', redirect_uris: [CALLBACK], grant_types: ['authorization_code', 'refresh_token'] });
  user = await makeUser(t);
  userAgent = new Agent(t);
  await userAgent.signIn(user);
  metadata = (await oidc.discovery(new URL(issuer), app.client_id, app.client_secret, undefined, { execute: [oidc.allowInsecureRequests] })).serverMetadata();
});
afterAll(async () => t?.close());

/**
 * The app's configuration as the server's clock now stands: openid-client's clock is moved by the
 * same amount (clockSkew, in seconds), as an app whose clock agrees with the provider's.
 */
function configNow(): oidc.Configuration {
  const skew = Math.round((t.clock.now() - Date.now()) / 1000);
  const config = new oidc.Configuration(metadata, app.client_id, { client_secret: app.client_secret, [oidc.clockSkew]: skew });
  oidc.allowInsecureRequests(config);
  return config;
}

function whois(accessToken: string): Promise<Response> {
  return fetch(`${issuer}/api/oauth/whois`, { headers: { Authorization: `Bearer ${accessToken}` } });
}

/** The ID token's signature, at the server's time: RS256 by a key of jwks_uri, this issuer and this app. */
async function verifyWithJwks(idToken: string): Promise<Record<string, unknown>> {
  const jwks = createRemoteJWKSet(new URL(metadata.jwks_uri!));
  const { payload } = await jwtVerify(idToken, jwks, { issuer, audience: app.client_id, algorithms: ['RS256'], currentDate: new Date(t.clock.now()) });
  return payload;
}

describe('openid-client v6 refreshTokenGrant: a person stays signed in across three access-token lifetimes', () => {
  it('the consent page names the app for offline_access; the code grant answers with a refresh token', async () => {
    const config = configNow();
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: CALLBACK,
      scope: SCOPE,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    // What the person is asked (OpenID Connect Core 11: consent to offline_access in particular).
    const page = await (await userAgent.fetch(`${url.pathname}${url.search}`)).text();
    expect(page).toContain('<li data-scope="offline_access">Stay signed in to Refreshing RP, even when you are away <code>offline_access</code></li>');

    const { callbackUrl, consented, scopes } = await authorizeOverHttp(userAgent, url);
    expect({ consented, scopes }).toEqual({ consented: true, scopes: ['userinfo', 'email', 'openid', 'profile', 'offline_access'] });
    const signedInAt = serverSeconds(t);
    const first = await oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true });
    expect(Object.keys(first).sort()).toEqual(['access_token', 'expires_in', 'id_token', 'refresh_token', 'token_type']);
    expect({ token_type: first.token_type, expires_in: first.expires_in }).toEqual({ token_type: 'bearer', expires_in: 600 });
    expect(first.refresh_token).toMatch(/^[\w-]{43}$/);
    const firstClaims = first.claims()!;
    expect(firstClaims).toMatchObject({ sub: String(user.id), aud: app.client_id, auth_time: signedInAt, nonce });

    // Three lifetimes: each time the access token has just expired, the app refreshes.
    let { access_token: accessToken, refresh_token: refreshToken } = first as { access_token: string; refresh_token: string };
    const spent: string[] = [];
    for (let lifetime = 1; lifetime <= 3; lifetime++) {
      t.clock.advance(LIFETIME_MS);
      const expired = await whois(accessToken);
      expect({ lifetime, status: expired.status, body: await expired.json() }).toEqual({ lifetime, status: 401, body: { message: 'Access token has expired' } });

      const now = serverSeconds(t);
      const refreshed = await oidc.refreshTokenGrant(configNow(), refreshToken);
      expect(Object.keys(refreshed).sort()).toEqual(['access_token', 'expires_in', 'id_token', 'refresh_token', 'token_type']);
      expect({ token_type: refreshed.token_type, expires_in: refreshed.expires_in }).toEqual({ token_type: 'bearer', expires_in: 600 });
      expect(refreshed.refresh_token).not.toBe(refreshToken);
      expect(refreshed.access_token).not.toBe(accessToken);

      // The new ID token (OpenID Connect Core 12.2): the same sub, aud, auth_time and amr as the
      // sign-in's, a new iat and exp, no nonce. openid-client checked it (iss, aud, exp at the
      // moved time, azp); its signature verifies against the JWKS at the server's time.
      const expected = {
        iss: issuer,
        sub: String(user.id),
        aud: app.client_id,
        exp: now + 600,
        iat: now,
        auth_time: signedInAt,
        amr: ['pwd'],
        acr: '1',
        azp: app.client_id,
        ...profileClaims(issuer, user),
        ...emailClaims(user),
      };
      expect(refreshed.claims()).toEqual(expected);
      expect(await verifyWithJwks(refreshed.id_token!)).toEqual(expected);

      // The new access token answers whois and UserInfo (for the expected subject).
      const who = await whois(refreshed.access_token);
      expect({ status: who.status, body: await who.json() }).toEqual({ status: 200, body: { id: user.id, name: user.name, email: user.email } });
      expect(await oidc.fetchUserInfo(configNow(), refreshed.access_token, String(user.id))).toEqual({
        sub: String(user.id),
        ...profileClaims(issuer, user),
        ...emailClaims(user),
      });

      spent.push(refreshToken);
      accessToken = refreshed.access_token;
      refreshToken = refreshed.refresh_token!;
    }
    // 30 minutes on, the person never signed in again.
    expect(serverSeconds(t) - signedInAt).toBe(1800);

    // The previous refresh token was spent by the last refresh: presented again, it ends the
    // whole family (the thief's copy and the app's alike), and the library raises invalid_grant.
    const reuse = (await oidc.refreshTokenGrant(configNow(), spent.at(-1)!).catch((e: unknown) => e)) as oidc.ResponseBodyError;
    expect(reuse).toBeInstanceOf(oidc.ResponseBodyError);
    expect({ status: reuse.status, error: reuse.error, description: reuse.error_description }).toEqual({
      status: 400,
      error: 'invalid_grant',
      description: 'Refresh token has already been used; every token of this sign-in is revoked',
    });
    // The current refresh token and the current access token went with it.
    const current = (await oidc.refreshTokenGrant(configNow(), refreshToken).catch((e: unknown) => e)) as oidc.ResponseBodyError;
    expect(current).toBeInstanceOf(oidc.ResponseBodyError);
    expect(current.cause).toEqual(oauthErrorBody('invalid_grant', 'Refresh token has been revoked'));
    const revoked = await whois(accessToken);
    expect({ status: revoked.status, body: await revoked.json() }).toEqual({ status: 401, body: { message: 'Access token has been revoked' } });
    // The first refresh token too: spent long ago, and of a revoked family.
    const oldest = (await oidc.refreshTokenGrant(configNow(), spent[0]!).catch((e: unknown) => e)) as oidc.ResponseBodyError;
    expect(oldest).toBeInstanceOf(oidc.ResponseBodyError);
    expect(oldest.error).toBe('invalid_grant');
  });
});
