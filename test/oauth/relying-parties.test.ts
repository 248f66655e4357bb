/**
 * OpenID Connect relying parties against the service, end to end over HTTP (no browser): the
 * user's part of the flow (sign-in, the consent form with its CSRF token) is driven by an Agent,
 * everything else by the libraries exactly as an app uses them.
 *
 * - openid-client v6 in OpenID Connect mode: discovery of /.well-known/openid-configuration,
 *   buildAuthorizationUrl with PKCE, state and nonce, authorizationCodeGrant (checks iss, state,
 *   nonce and the ID token's claims), fetchUserInfo with the expected subject; a confidential and
 *   a public client (client.None()). openid-client checks an ID token's claims but, as OpenID
 *   Connect Core 3.1.3.7 allows for a token received straight from the token endpoint over TLS,
 *   not its signature: the suite verifies that with jose against jwks_uri.
 * - passport-openidconnect configured from the discovery document, in an express app.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import express, { type NextFunction, type Request, type RequestHandler, type Response as ExpressResponse } from 'express';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { Passport, type Strategy as PassportStrategy } from 'passport';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, fixturesDir, makeUser, signedInAgent, startServer, TEST_PASSWORD, type TestServer } from '../helpers.js';
import { authorizeOverHttp, emailClaims, profileClaims, registerApp, serverSeconds, type RegisteredApp } from '../oidc-flow.js';
import type { UserRecord } from '../../src/domain/users.js';

let t: TestServer;
let issuer: string;
/** The developer who registers the apps. */
let developer: Agent;
/** The user who signs in to them, with a profile picture. */
let user: UserRecord;
let userAgent: Agent;

const CALLBACK = 'https://rp.example/callback';

beforeAll(async () => {
  t = await startServer();
  // discovery() requires the issuer to be the address it was asked at: PUBLIC_URL becomes the
  // test server's own address once it listens (handlers read the config per request).
  t.config.publicUrl = t.baseUrl;
  issuer = t.baseUrl;
  ({ agent: developer } = await signedInAgent(t));
  user = await makeUser(t);
  userAgent = new Agent(t);
  await userAgent.signIn(user);
  // A picture, so that the picture claim carries its timestamp.
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(fs.readFileSync(path.join(fixturesDir, 'photo.jpg')))]), 'photo.jpg');
  const upload = await userAgent.fetch('/api/account/picture', { method: 'PUT', body: form, headers: { 'X-CSRF-Token': await userAgent.csrf() } });
  expect(upload.status).toBe(200);
  user = (await t.store.users.getUser(user.id))!;
  expect(user.pfpTimestamp).toEqual(expect.any(Number));
});
afterAll(async () => t?.close());

const insecure = { execute: [oidc.allowInsecureRequests] };

/** What every ID token of this service carries for `client` (the server's clock stands still). */
function baseClaims(clientId: string, nonce: string | undefined): Record<string, unknown> {
  const now = serverSeconds(t);
  return {
    iss: issuer,
    sub: String(user.id),
    aud: clientId,
    exp: now + 600,
    iat: now,
    auth_time: now,
    // Every sign-in here is a password's: one factor.
    amr: ['pwd'],
    acr: '1',
    ...(nonce === undefined ? {} : { nonce }),
    azp: clientId,
  };
}

/** Verifies `idToken` as a relying party must: RS256, signed by a key of jwks_uri, issuer and audience. */
async function verifyWithJwks(config: oidc.Configuration, idToken: string, audience: string) {
  const jwks = createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri!));
  return jwtVerify(idToken, jwks, { issuer, audience, algorithms: ['RS256'], currentDate: new Date(t.clock.now()) });
}

describe('openid-client v6, OpenID Connect mode', () => {
  let app: RegisteredApp;
  let config: oidc.Configuration;

  beforeAll(async () => {
    app = await registerApp(developer, { name: 'Confidential RP', redirect_uris: [CALLBACK] });
  });

  it('discovery() reads /.well-known/openid-configuration: the endpoints and what the provider supports', async () => {
    config = await oidc.discovery(new URL(issuer), app.client_id, app.client_secret, undefined, insecure);
    const metadata = config.serverMetadata();
    expect(metadata).toMatchObject({
      issuer,
      authorization_endpoint: `${issuer}/oauth`,
      token_endpoint: `${issuer}/api/oauth/token`,
      userinfo_endpoint: `${issuer}/api/oauth/userinfo`,
      jwks_uri: `${issuer}/.well-known/jwks.json`,
      end_session_endpoint: `${issuer}/oauth/logout`,
      response_types_supported: ['code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      prompt_values_supported: ['none', 'login', 'consent'],
      authorization_response_iss_parameter_supported: true,
    });
    expect(metadata.scopes_supported).toEqual(expect.arrayContaining(['openid', 'profile', 'email', 'userinfo']));
    expect(metadata.claims_supported).toEqual(
      expect.arrayContaining(['sub', 'iss', 'aud', 'exp', 'iat', 'auth_time', 'amr', 'acr', 'nonce', 'azp', 'preferred_username', 'picture', 'updated_at', 'email', 'email_verified']),
    );
    // The RFC 8414 document is the same object, but for the field OAuth clients read whois from.
    const rfc8414 = (await (await fetch(`${issuer}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    const openid = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(rfc8414).toEqual({ ...openid, userinfo_endpoint: `${issuer}/api/oauth/whois` });
  });

  it('code flow with PKCE, state and nonce: the ID token is checked by the library, its signature by the JWKS; UserInfo answers for the subject', async () => {
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: CALLBACK,
      scope: 'openid profile email',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    expect(url.origin + url.pathname).toBe(`${issuer}/oauth`);
    const { callbackUrl, consented, scopes } = await authorizeOverHttp(userAgent, url);
    expect({ consented, scopes }).toEqual({ consented: true, scopes: ['email', 'openid', 'profile'] });
    expect(callbackUrl.origin + callbackUrl.pathname).toBe(CALLBACK);
    expect(callbackUrl.searchParams.get('iss')).toBe(issuer);

    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
      idTokenExpected: true,
    });
    expect(Object.keys(tokens).sort()).toEqual(['access_token', 'expires_in', 'id_token', 'token_type']);
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(600);
    const expected = { ...baseClaims(app.client_id, nonce), ...profileClaims(issuer, user), ...emailClaims(user) };
    expect(tokens.claims()).toEqual(expected);

    const { payload, protectedHeader } = await verifyWithJwks(config, tokens.id_token!, app.client_id);
    expect(payload).toEqual(expected);
    expect(protectedHeader).toMatchObject({ alg: 'RS256', kid: expect.any(String) });

    const userInfo = await oidc.fetchUserInfo(config, tokens.access_token, String(user.id));
    expect(userInfo).toEqual({ sub: String(user.id), ...profileClaims(issuer, user), ...emailClaims(user) });
    expect(userInfo.updated_at).toBe(payload.updated_at);
  });

  it('fetchUserInfo refuses an answer for another subject (the expected subject is checked)', async () => {
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: CALLBACK,
      scope: 'openid',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    const { callbackUrl } = await authorizeOverHttp(userAgent, url);
    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce });
    // Only openid: the ID token and UserInfo carry the subject and nothing else of the user.
    expect(tokens.claims()).toEqual(baseClaims(app.client_id, nonce));
    expect(await oidc.fetchUserInfo(config, tokens.access_token, String(user.id))).toEqual({ sub: String(user.id) });
    const err = (await oidc.fetchUserInfo(config, tokens.access_token, String(user.id + 1000)).catch((e: unknown) => e)) as Error & { cause?: Error };
    expect(err).toBeInstanceOf(oidc.ClientError);
    expect(err.cause?.message).toBe('unexpected "response" body "sub" property value');
  });

  it('a nonce other than the one sent fails in the library, before any claim is trusted', async () => {
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: CALLBACK,
      scope: 'openid',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce: 'nonce-sent',
    });
    const { callbackUrl } = await authorizeOverHttp(userAgent, url);
    const err = (await oidc
      .authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: 'another-nonce' })
      .catch((e: unknown) => e)) as Error & { cause?: Error };
    expect(err).toBeInstanceOf(oidc.ClientError);
    expect(err.cause?.message).toBe('unexpected ID Token "nonce" claim value');
  });
});

describe('openid-client v6, a public client (client.None(), PKCE, no secret)', () => {
  let app: RegisteredApp;
  let config: oidc.Configuration;

  beforeAll(async () => {
    app = await registerApp(developer, { name: 'Public RP', redirect_uris: [CALLBACK], public: true });
    config = await oidc.discovery(new URL(issuer), app.client_id, undefined, oidc.None(), insecure);
  });

  it('signs in with PKCE and nonce; the ID token verifies against the JWKS; UserInfo answers', async () => {
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: CALLBACK,
      scope: 'openid profile',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    const { callbackUrl, consented, scopes } = await authorizeOverHttp(userAgent, url);
    expect({ consented, scopes }).toEqual({ consented: true, scopes: ['openid', 'profile'] });
    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true });
    const expected = { ...baseClaims(app.client_id, nonce), ...profileClaims(issuer, user) };
    expect(tokens.claims()).toEqual(expected);
    expect((await verifyWithJwks(config, tokens.id_token!, app.client_id)).payload).toEqual(expected);
    expect(await oidc.fetchUserInfo(config, tokens.access_token, String(user.id))).toEqual({ sub: String(user.id), ...profileClaims(issuer, user) });
  });

  it('without a code_challenge the provider answers invalid_request, which the library raises', async () => {
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, { redirect_uri: CALLBACK, scope: 'openid', state });
    const res = await userAgent.fetch(`${url.pathname}${url.search}`);
    expect(res.status).toBe(302);
    const callbackUrl = new URL(res.headers.get('location')!);
    expect(Object.fromEntries(callbackUrl.searchParams)).toEqual({
      error: 'invalid_request',
      error_description: 'A public client must send a PKCE code_challenge (S256)',
      state,
      iss: issuer,
    });
    const err = (await oidc.authorizationCodeGrant(config, callbackUrl, { expectedState: state }).catch((e: unknown) => e)) as oidc.AuthorizationResponseError;
    expect(err).toBeInstanceOf(oidc.AuthorizationResponseError);
    expect({ error: err.error, description: err.error_description }).toEqual({ error: 'invalid_request', description: 'A public client must send a PKCE code_challenge (S256)' });
  });
});

/** passport-openidconnect ships no types: the part of its API this suite uses. */
interface OidcStrategyOptions {
  issuer: string;
  authorizationURL: string;
  tokenURL: string;
  userInfoURL: string;
  clientID: string;
  clientSecret: string;
  callbackURL: string;
  scope: string[];
  nonce: boolean;
}
interface OidcProfile {
  id: string;
  username?: string;
  emails?: { value: string }[];
  _raw?: string;
  _json?: Record<string, unknown>;
}
type Verified = (err: Error | null, user?: unknown) => void;
type VerifyFunction = (
  issuer: string,
  userInfoProfile: OidcProfile,
  idTokenProfile: OidcProfile,
  context: { timestamp?: Date },
  idToken: string,
  accessToken: string,
  refreshToken: string | undefined,
  params: Record<string, unknown>,
  done: Verified,
) => void;
const OpenIDConnectStrategy = createRequire(import.meta.url)('passport-openidconnect') as new (options: OidcStrategyOptions, verify: VerifyFunction) => PassportStrategy;

describe('passport-openidconnect against discovery', () => {
  let rp: http.Server;
  let rpOrigin: string;
  let app: RegisteredApp;
  /** What the verify callback received, one entry per sign-in. */
  const verified: { issuer: string; userInfoProfile: OidcProfile; idTokenProfile: OidcProfile; context: { timestamp?: Date }; idToken: string; params: Record<string, unknown> }[] = [];
  /** The last authorization request the strategy redirected to. */
  let authorizationRequest: URL;

  beforeAll(async () => {
    rp = http.createServer();
    await new Promise<void>((resolve) => rp.listen(0, '127.0.0.1', resolve));
    rpOrigin = `http://127.0.0.1:${(rp.address() as AddressInfo).port}`;
    app = await registerApp(developer, { name: 'Passport RP', redirect_uris: [`${rpOrigin}/callback`] });

    const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Record<string, string>;
    const passport = new Passport();
    passport.use(
      'oidc',
      new OpenIDConnectStrategy(
        {
          issuer: discovery.issuer!,
          authorizationURL: discovery.authorization_endpoint!,
          tokenURL: discovery.token_endpoint!,
          userInfoURL: discovery.userinfo_endpoint!,
          clientID: app.client_id,
          clientSecret: app.client_secret!,
          callbackURL: `${rpOrigin}/callback`,
          scope: ['profile', 'email'],
          nonce: true,
        },
        // Nine parameters: the strategy then loads UserInfo and passes both profiles.
        (issuerClaim, userInfoProfile, idTokenProfile, context, idToken, _accessToken, _refreshToken, params, done) => {
          verified.push({ issuer: issuerClaim, userInfoProfile, idTokenProfile, context, idToken, params });
          done(null, { id: userInfoProfile.id });
        },
      ),
    );

    // The strategy keeps its state (and nonce) in req.session: a minimal in-memory session.
    const sessions = new Map<string, Record<string, unknown>>();
    const web = express();
    web.use((req: Request & { session?: Record<string, unknown> }, res: ExpressResponse, next: NextFunction) => {
      let sid = /(?:^|;\s*)rp\.sid=([\w-]+)/.exec(req.headers.cookie ?? '')?.[1];
      if (!sid || !sessions.has(sid)) {
        sid = randomUUID();
        sessions.set(sid, {});
        res.setHeader('Set-Cookie', `rp.sid=${sid}; Path=/; HttpOnly`);
      }
      req.session = sessions.get(sid);
      next();
    });
    web.get('/login', passport.authenticate('oidc', { session: false }) as RequestHandler);
    web.get('/callback', (req, res, next) => {
      (passport.authenticate('oidc', { session: false }, (err: unknown, signedIn: unknown, info: unknown) => {
        if (err) res.status(500).json({ error: err instanceof Error ? err.message : JSON.stringify(err) });
        else if (!signedIn) res.status(401).json({ info });
        else res.json({ user: signedIn });
      }) as RequestHandler)(req, res, next);
    });
    rp.on('request', web);
  });
  afterAll(() => rp?.close());

  /** The whole sign-in over HTTP: the RP's /login, the provider's consent, the RP's /callback. */
  async function signIn(as: Agent): Promise<{ status: number; body: unknown }> {
    const login = await fetch(`${rpOrigin}/login`, { redirect: 'manual' });
    expect(login.status).toBe(302);
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    authorizationRequest = new URL(login.headers.get('location')!);
    const { callbackUrl } = await authorizeOverHttp(as, authorizationRequest);
    expect(callbackUrl.origin + callbackUrl.pathname).toBe(`${rpOrigin}/callback`);
    const back = await fetch(callbackUrl, { headers: { Cookie: cookie }, redirect: 'manual' });
    return { status: back.status, body: await back.json() };
  }

  it('signs in: the strategy checks the ID token (issuer, audience, nonce), loads UserInfo and hands both profiles to verify', async () => {
    expect(await signIn(userAgent)).toEqual({ status: 200, body: { user: { id: String(user.id) } } });
    expect(Object.fromEntries(authorizationRequest.searchParams)).toEqual({
      response_type: 'code',
      client_id: app.client_id,
      redirect_uri: `${rpOrigin}/callback`,
      scope: 'openid profile email',
      nonce: expect.stringMatching(/^[\w+/]{20}$/),
      state: expect.any(String),
    });
    expect(verified).toHaveLength(1);
    const [call] = verified;
    const userInfo = { sub: String(user.id), ...profileClaims(issuer, user), ...emailClaims(user) };
    expect(call!.issuer).toBe(issuer);
    expect(call!.userInfoProfile).toEqual({
      id: String(user.id),
      // passport-openidconnect's displayName is the `name` claim: the public name.
      displayName: user.name,
      username: user.name,
      emails: [{ value: user.email }],
      _raw: expect.any(String),
      _json: userInfo,
    });
    expect(JSON.parse(call!.userInfoProfile._raw!)).toEqual(userInfo);
    expect(call!.idTokenProfile).toEqual({ id: String(user.id), displayName: user.name, username: user.name, emails: [{ value: user.email }] });
    // The strategy hands the ID token's acr and amr on as the sign-in's class and methods.
    expect(call!.context).toEqual({ timestamp: new Date(serverSeconds(t) * 1000), class: '1', methods: ['pwd'] });
    expect(call!.params).toEqual({ access_token: expect.stringMatching(/^[\w-]{43}$/), token_type: 'Bearer', expires_in: 600, id_token: call!.idToken });

    // What the strategy leaves out (the signature) holds too.
    const nonce = authorizationRequest.searchParams.get('nonce')!;
    const jwks = createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`));
    const { payload } = await jwtVerify(call!.idToken, jwks, { issuer, audience: app.client_id, algorithms: ['RS256'], currentDate: new Date(t.clock.now()) });
    expect(payload).toEqual({ ...baseClaims(app.client_id, nonce), ...profileClaims(issuer, user), ...emailClaims(user) });
    expect(decodeProtectedHeader(call!.idToken)).toMatchObject({ alg: 'RS256', kid: expect.any(String) });
  });

  it('a second user, signed in through the sign-in page on the way, gets their own profile', async () => {
    const other = await makeUser(t);
    const agent = new Agent(t);
    const login = await fetch(`${rpOrigin}/login`, { redirect: 'manual' });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const authorization = new URL(login.headers.get('location')!);
    // Signed out: the provider sends the visitor to sign in first, and back to the same request.
    const first = await agent.fetch(`${authorization.pathname}${authorization.search}`);
    expect(first.status).toBe(302);
    const returnTo = `${authorization.pathname}${authorization.search}`;
    expect(first.headers.get('location')).toBe(`/signin?return_to=${encodeURIComponent(returnTo)}`);
    const signedIn = await agent.form('/signin', { name: other.name, password: TEST_PASSWORD, return_to: returnTo });
    expect(signedIn.headers.get('location')).toBe(returnTo);
    const { callbackUrl } = await authorizeOverHttp(agent, authorization);
    const back = await fetch(callbackUrl, { headers: { Cookie: cookie }, redirect: 'manual' });
    expect({ status: back.status, body: await back.json() }).toEqual({ status: 200, body: { user: { id: String(other.id) } } });
    expect(verified.at(-1)!.userInfoProfile).toEqual({
      id: String(other.id),
      displayName: other.name,
      username: other.name,
      emails: [{ value: other.email }],
      _raw: expect.any(String),
      _json: { sub: String(other.id), ...profileClaims(issuer, other), ...emailClaims(other) },
    });
  });
});
