/**
 * The upstream test provider (test/upstream-provider.ts: node-oidc-provider on 127.0.0.1) proven
 * with what the service uses against it, openid-client 6: discovery, an authorization URL with
 * state, nonce and PKCE (S256), Chromium signing in and consenting on the provider's own pages,
 * the code grant (state, nonce, PKCE and `iss` checked), the ID token's claims (with `amr` when the
 * account has one), userinfo, and userinfo read as a plain protected resource (the OAuth 2.0 path
 * reads the identity that way, with a claim mapping). A person cancelling on the consent page
 * comes back with `error=access_denied`; a request without PKCE is refused.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oidc from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from '../browser/chromium.js';
import {
  showUpstreamLogsOnFailure,
  signInAtUpstream,
  startUpstreamProvider,
  type UpstreamAccount,
  type UpstreamClient,
  type UpstreamProvider,
} from '../upstream-provider.js';

const CLIENT_ID = 'identity-service';
const CLIENT_SECRET = 'upstream-client-secret-0123456789';
const SCOPE = 'openid email profile';

const ALICE: UpstreamAccount = { sub: 'upstream-alice-0001', email: 'alice@upstream.example', email_verified: true, name: 'Alice Upstream', preferred_username: 'alice_up', amr: ['pwd', 'mfa'] };
const BOB: UpstreamAccount = { sub: 'upstream-bob-0002', email: 'bob@upstream.example', email_verified: false, name: 'Bob Upstream', preferred_username: 'bob_up' };

let upstream: UpstreamProvider | undefined;
let browser: Browser;
let callbackServer: http.Server;
let redirectUri: string;
/** Every request the browser made to the redirect URI's path, as full URLs, in order. */
const callbacks: URL[] = [];
let config: oidc.Configuration;

async function newPage(): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  page.setDefaultTimeout(10_000);
  return page;
}

/** An authorization request as the service makes it, with the checks it keeps for the callback. */
async function authorizationRequest(): Promise<{ url: URL; verifier: string; state: string; nonce: string }> {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: SCOPE,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  return { url, verifier, state, nonce };
}

/** Signs `login` in through Chromium; the callback the browser brought back. */
async function callbackAfterSignIn(url: URL, login: string, consent: 'allow' | 'cancel' = 'allow'): Promise<URL> {
  const page = await newPage();
  const before = callbacks.length;
  await page.goto(url.href);
  await signInAtUpstream(page, login, { consent });
  expect(page.url().startsWith(`${redirectUri}?`)).toBe(true);
  await page.context().close();
  expect(callbacks.length).toBe(before + 1);
  return callbacks[before]!;
}

describe.skipIf(!hasChromium)('the upstream test provider (node-oidc-provider) with openid-client', () => {
  showUpstreamLogsOnFailure(() => upstream);

  beforeAll(async () => {
    callbackServer = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
      if (url.pathname === '/callback') callbacks.push(url);
      res.setHeader('Content-Type', 'text/html');
      res.end('<!doctype html><title>service callback</title><h1>service callback</h1>');
    });
    await new Promise<void>((resolve) => callbackServer.listen(0, '127.0.0.1', resolve));
    redirectUri = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}/callback`;
    const client: UpstreamClient = { client_id: CLIENT_ID, client_secret: CLIENT_SECRET, redirect_uris: [redirectUri] };
    upstream = await startUpstreamProvider({
      clients: [client],
      accounts: { alice: ALICE, bob: BOB },
    });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    callbackServer?.close();
    await upstream?.close();
  });

  it('is discovered at its issuer, http://127.0.0.1:<port>, with PKCE S256 and client_secret_basic', async () => {
    const issuer = upstream!.issuer;
    expect(issuer).toBe(`http://127.0.0.1:${upstream!.port}`);
    config = await oidc.discovery(new URL(issuer), CLIENT_ID, CLIENT_SECRET, oidc.ClientSecretBasic(CLIENT_SECRET), {
      execute: [oidc.allowInsecureRequests],
    });
    const metadata = config.serverMetadata();
    expect(metadata.issuer).toBe(issuer);
    expect(metadata.authorization_endpoint).toBe(`${issuer}/auth`);
    expect(metadata.token_endpoint).toBe(`${issuer}/token`);
    expect(metadata.userinfo_endpoint).toBe(`${issuer}/me`);
    expect(metadata.code_challenge_methods_supported).toEqual(['S256']);
    expect(metadata.scopes_supported).toEqual(['openid', 'email', 'profile']);
    expect(metadata.claims_supported).toEqual(['sub', 'amr', 'email', 'email_verified', 'name', 'preferred_username', 'sid', 'auth_time', 'iss']);
    expect(metadata.token_endpoint_auth_methods_supported).toContain('client_secret_basic');
    expect(metadata.authorization_response_iss_parameter_supported).toBe(true);
  });

  it('signs alice in through its pages: the ID token, userinfo and userinfo as a protected resource', async () => {
    const { url, verifier, state, nonce } = await authorizationRequest();
    const callback = await callbackAfterSignIn(url, 'alice');
    expect([...callback.searchParams.keys()].sort()).toEqual(['code', 'iss', 'state']);
    expect(callback.searchParams.get('state')).toBe(state);
    expect(callback.searchParams.get('iss')).toBe(upstream!.issuer);

    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce });
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.scope).toBe(SCOPE);
    expect(tokens.claims()).toEqual({
      iss: upstream!.issuer,
      aud: CLIENT_ID,
      sub: ALICE.sub,
      email: ALICE.email,
      email_verified: true,
      name: ALICE.name,
      preferred_username: ALICE.preferred_username,
      amr: ['pwd', 'mfa'],
      nonce,
      iat: expect.any(Number),
      exp: expect.any(Number),
    });

    const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, ALICE.sub);
    expect(userinfo).toEqual({ sub: ALICE.sub, email: ALICE.email, email_verified: true, name: ALICE.name, preferred_username: ALICE.preferred_username });

    const res = await oidc.fetchProtectedResource(config, tokens.access_token, new URL(config.serverMetadata().userinfo_endpoint!), 'GET');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toEqual({ sub: ALICE.sub, email: ALICE.email, email_verified: true, name: ALICE.name, preferred_username: ALICE.preferred_username });
  });

  it('gives bob (no amr, email not verified) an ID token without amr', async () => {
    const { url, verifier, state, nonce } = await authorizationRequest();
    const callback = await callbackAfterSignIn(url, 'bob');
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce });
    expect(tokens.claims()).toEqual({
      iss: upstream!.issuer,
      aud: CLIENT_ID,
      sub: BOB.sub,
      email: BOB.email,
      email_verified: false,
      name: BOB.name,
      preferred_username: BOB.preferred_username,
      nonce,
      iat: expect.any(Number),
      exp: expect.any(Number),
    });
  });

  it('sends a person who cancels on the consent page back with error=access_denied', async () => {
    const { url, state } = await authorizationRequest();
    const callback = await callbackAfterSignIn(url, 'alice', 'cancel');
    expect(Object.fromEntries(callback.searchParams)).toEqual({
      error: 'access_denied',
      error_description: 'End-User aborted interaction',
      state,
      iss: upstream!.issuer,
    });
  });

  it('refuses an authorization request without PKCE', async () => {
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, { redirect_uri: redirectUri, scope: SCOPE, state });
    const page = await newPage();
    await page.goto(url.href);
    expect(page.url().startsWith(`${redirectUri}?`)).toBe(true);
    await page.context().close();
    expect(Object.fromEntries(callbacks.at(-1)!.searchParams)).toEqual({
      error: 'invalid_request',
      error_description: 'Authorization Server policy requires PKCE to be used for this request',
      state,
      iss: upstream!.issuer,
    });
  });
});
