/**
 * A static single-page app on another origin signs in as a public client with oidc-client-ts, in
 * Chromium: discovery, authorization code with PKCE and a nonce, the token request and UserInfo
 * from the browser (CORS), then RP-initiated sign-out back to a registered post-logout URI.
 *
 * The provider is http://localhost:<port> (its PUBLIC_URL), the app http://127.0.0.1:<port2>:
 * another origin and another site, so the session cookie is never the app's. The app is
 * test/fixtures/oidc-spa/index.html with oidc-client-ts's browser build and jose's, served by the
 * test from node_modules.
 *
 * oidc-client-ts checks the callback's state, the ID token's nonce and subject, and that UserInfo
 * answers for the same subject; it leaves the signature to TLS (OpenID Connect Core 3.1.3.7), so
 * the app also verifies it with jose against jwks_uri, as an app that wants it does.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import type { Browser, BrowserContext, Page, Request as BrowserRequest } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/admin.js';
import { Agent, makeUser, startServer, tempDir, TEST_PASSWORD, type TestServer } from '../helpers.js';
import { emailClaims, profileClaims, registerApp, serverSeconds, type RegisteredApp } from '../oidc-flow.js';
import type { UserRecord } from '../../src/domain/users.js';
import { hasChromium, launchChromium, SCREENSHOTS_DIR } from './chromium.js';

const root = path.resolve(import.meta.dirname, '..', '..');
const SPA_PAGE = fs.readFileSync(path.join(root, 'test/fixtures/oidc-spa/index.html'));
const OIDC_CLIENT_TS = path.join(root, 'node_modules/oidc-client-ts/dist/browser/oidc-client-ts.min.js');
const JOSE_DIR = path.join(root, 'node_modules/jose/dist/webapi');

let dir: string;
let env: NodeJS.ProcessEnv;
let t: TestServer;
let issuer: string;
let browser: Browser;
let spaServer: http.Server;
let spaOrigin: string;
/** What the app's /config.json answers. */
const spaConfig: { authority?: string; client_id?: string; scope: string } = { scope: 'openid profile email' };
let app: RegisteredApp;
let user: UserRecord;
let context: BrowserContext;
let page: Page;
/** Problems the app's pages reported (not the provider's): uncaught errors and console errors. */
const pageProblems: string[] = [];
/** The app's fetches to the provider, in order. */
const providerFetches: { method: string; url: string; authorization: string | null; origin: string | null; body: string | null; status?: number }[] = [];

/** An operator command over the server's database and clock: exit 0, one JSON line. */
async function admin<T>(...argv: string[]): Promise<T> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { env, now: t.clock.now, stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  return JSON.parse(stdout) as T;
}

/** The app's own server: the page for every path, /config.json, and the two libraries. */
function serveSpa(req: http.IncomingMessage, res: http.ServerResponse): void {
  const pathname = new URL(req.url!, 'http://spa').pathname;
  const send = (type: string, body: Buffer | string) => {
    res.setHeader('Content-Type', type);
    res.end(body);
  };
  if (pathname === '/config.json') return send('application/json', JSON.stringify(spaConfig));
  if (pathname === '/vendor/oidc-client-ts.min.js') return send('text/javascript', fs.readFileSync(OIDC_CLIENT_TS));
  if (pathname.startsWith('/vendor/jose/')) {
    const file = path.join(JOSE_DIR, path.normalize(pathname.slice('/vendor/jose/'.length)));
    if (file.startsWith(`${JOSE_DIR}${path.sep}`) && file.endsWith('.js') && fs.existsSync(file)) return send('text/javascript', fs.readFileSync(file));
    res.statusCode = 404;
    return send('text/plain', 'not found');
  }
  if (pathname === '/favicon.ico') {
    res.statusCode = 404;
    return send('text/plain', 'not found');
  }
  send('text/html; charset=utf-8', SPA_PAGE);
}

async function newPage(): Promise<Page> {
  const tab = await context.newPage();
  tab.setDefaultTimeout(10_000);
  tab.on('pageerror', (err) => {
    if (tab.url().startsWith(spaOrigin)) pageProblems.push(`pageerror: ${err.message}`);
  });
  tab.on('console', (msg) => {
    if (msg.type() === 'error' && msg.location().url.startsWith(spaOrigin)) pageProblems.push(`console: ${msg.text()} (${msg.location().url})`);
  });
  tab.on('requestfinished', (request: BrowserRequest) => {
    void (async () => {
      if (!request.url().startsWith(issuer) || !['fetch', 'xhr'].includes(request.resourceType())) return;
      // The app's own calls only: not the provider's pages' (the sign-in page asks for passkey options).
      if (!request.frame().url().startsWith(spaOrigin)) return;
      const headers = await request.allHeaders();
      providerFetches.push({
        method: request.method(),
        url: request.url(),
        authorization: headers.authorization ?? null,
        origin: headers.origin ?? null,
        body: request.postData(),
        status: (await request.response())?.status(),
      });
    })();
  });
  return tab;
}

/** The app's status line once it settles, and what it shows. */
async function settled(tab: Page, status: string): Promise<{ result: Record<string, unknown> | null; error: string }> {
  await tab.waitForFunction((want) => ['error', want].includes(document.getElementById('status')!.textContent), status);
  const error = (await tab.textContent('#error'))!;
  expect({ status: await tab.textContent('#status'), error }).toEqual({ status, error: '' });
  const text = (await tab.textContent('#result'))!;
  return { result: text ? (JSON.parse(text) as Record<string, unknown>) : null, error };
}

/**
 * The app signs in again while the provider's session lasts and the consent is remembered: no
 * page of the provider shows. The app's own storage is cleared first (signed out of the app only).
 */
async function signInAgain(): Promise<{ status: string | null; error: string | null }> {
  await page.evaluate(() => sessionStorage.clear());
  await page.goto(`${spaOrigin}/`);
  await page.waitForFunction(() => document.getElementById('status')!.textContent !== 'loading');
  await Promise.all([page.waitForURL(`${spaOrigin}/callback?**`), page.evaluate(() => document.getElementById('signin')!.click())]);
  await page.waitForFunction(() => ['error', 'signed in'].includes(document.getElementById('status')!.textContent));
  return { status: await page.textContent('#status'), error: await page.textContent('#error') };
}

interface SpaWindow {
  spa: { user(): Promise<{ id_token: string } | null>; verifyIdToken(idToken: string, audience: string): Promise<{ protectedHeader: Record<string, unknown>; payload: Record<string, unknown> }> };
}

/** The app's current ID token, verified in the browser with jose against the provider's JWKS. */
function verifyInBrowser(idToken: string): Promise<{ protectedHeader: Record<string, unknown>; payload: Record<string, unknown> } | { error: string }> {
  return page.evaluate(
    ([token, audience]) => (window as unknown as SpaWindow).spa.verifyIdToken(token, audience).catch((err: Error) => ({ error: `${err.name}: ${err.message}` })),
    [idToken, app.client_id] as const,
  );
}

describe.skipIf(!hasChromium)('a single-page app signs in with oidc-client-ts as a public client, in Chromium', () => {
  beforeAll(async () => {
    dir = tempDir('idp-spa-');
    // One environment for the server and the operator CLI (the key rotation below): the same
    // database, and the same SESSION_SECRET, which encrypts the signing keys.
    env = {
      DATABASE_URL: path.join(dir, 'spa.sqlite'),
      PICTURES_DIR: path.join(dir, 'pictures'),
      OUTBOX_DIR: path.join(dir, 'outbox'),
      SESSION_SECRET: 'spa-test-session-secret-0123456789abcdef',
      DEMO_DATA: 'false',
      LOG_LEVEL: 'silent',
    };
    t = await startServer(env);
    // The provider's origin is localhost, the app's 127.0.0.1: two sites.
    issuer = `http://localhost:${new URL(t.baseUrl).port}`;
    t.config.publicUrl = issuer;
    spaServer = http.createServer(serveSpa);
    await new Promise<void>((resolve) => spaServer.listen(0, '127.0.0.1', resolve));
    spaOrigin = `http://127.0.0.1:${(spaServer.address() as AddressInfo).port}`;

    const developer = new Agent(t);
    await developer.signIn(await makeUser(t));
    app = await registerApp(developer, {
      name: 'Static SPA',
      redirect_uris: [`${spaOrigin}/callback`],
      post_logout_redirect_uris: [`${spaOrigin}/signed-out`],
      public: true,
    });
    spaConfig.authority = issuer;
    spaConfig.client_id = app.client_id;
    user = await makeUser(t);

    browser = await launchChromium();
    context = await browser.newContext();
    page = await newPage();
  });
  afterAll(async () => {
    await browser?.close();
    spaServer?.close();
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("loads oidc-client-ts's browser build from its own origin, without errors", async () => {
    await page.goto(`${spaOrigin}/`);
    await settled(page, 'ready');
    expect(await page.evaluate(() => (window as unknown as { spa: { version: string } }).spa.version)).toBe('3.5.0');
    expect(await page.isVisible('#signin')).toBe(true);
    expect(pageProblems).toEqual([]);
    expect(providerFetches).toEqual([]);
  });

  it('signs in: the provider asks to sign in, then for consent; the app gets the ID token, the access token and the UserInfo claims', async () => {
    const now = serverSeconds(t);
    await page.goto(`${spaOrigin}/`);
    await settled(page, 'ready');
    // Signed out at the provider: its sign-in page first, then back to the authorization request.
    await Promise.all([page.waitForURL(`${issuer}/signin?**`), page.click('#signin')]);
    const authorization = new URL(new URL(page.url()).searchParams.get('return_to')!, issuer);
    expect(authorization.pathname).toBe('/oauth');
    expect(Object.fromEntries(authorization.searchParams)).toEqual({
      client_id: app.client_id,
      redirect_uri: `${spaOrigin}/callback`,
      response_type: 'code',
      scope: 'openid profile email',
      nonce: expect.stringMatching(/^[\da-f-]{36}$/),
      state: expect.stringMatching(/^[\da-f]{32}$/),
      code_challenge: expect.stringMatching(/^[\w-]{43}$/),
      code_challenge_method: 'S256',
    });
    await page.fill('input[name=name]', user.name);
    await page.fill('input[name=password]', TEST_PASSWORD);
    await Promise.all([page.waitForURL(`${issuer}/oauth?**`), page.click('button[type=submit]')]);
    expect(await page.textContent('#app-name')).toBe('Static SPA');
    expect(await page.locator('#scopes li').evaluateAll((items) => items.map((li) => li.getAttribute('data-scope')))).toEqual(['email', 'openid', 'profile']);
    await page.screenshot({ path: path.join(SCREENSHOTS_DIR, 'oidc-spa-consent.png'), fullPage: true });
    await Promise.all([page.waitForURL(`${spaOrigin}/callback?**`), page.click('#authorize')]);
    const callback = new URL(page.url());
    expect([...callback.searchParams.keys()]).toEqual(['code', 'state', 'iss']);
    expect(callback.searchParams.get('iss')).toBe(issuer);

    const { result } = await settled(page, 'signed in');
    expect(result).toEqual({
      profile: {
        // The ID token's claims less the protocol ones oidc-client-ts filters out, merged with UserInfo's.
        iss: issuer,
        aud: app.client_id,
        exp: now + 600,
        iat: now,
        sub: String(user.id),
        ...profileClaims(issuer, user),
        ...emailClaims(user),
      },
      id_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      access_token: expect.stringMatching(/^[\w-]{43}$/),
      token_type: 'Bearer',
      scope: 'openid profile email',
      expires_in: expect.any(Number),
      sent_nonce: authorization.searchParams.get('nonce'),
    });
    await page.screenshot({ path: path.join(SCREENSHOTS_DIR, 'oidc-spa-signed-in.png'), fullPage: true });

    // The ID token: the nonce the app sent, the app as audience, signed by a key of jwks_uri.
    const jwks = createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`));
    const { payload } = await jwtVerify(result!.id_token as string, jwks, { issuer, audience: app.client_id, algorithms: ['RS256'], currentDate: new Date(t.clock.now()) });
    expect(payload).toEqual({
      iss: issuer,
      sub: String(user.id),
      aud: app.client_id,
      exp: now + 600,
      iat: now,
      auth_time: now,
      nonce: authorization.searchParams.get('nonce'),
      azp: app.client_id,
      // A password sign-in: one factor.
      amr: ['pwd'],
      acr: '1',
      ...profileClaims(issuer, user),
      ...emailClaims(user),
    });

    // What the app fetched from the provider: discovery on each page load (the second may come
    // from the browser's cache), the code exchange from the app's origin with the client id and
    // the PKCE verifier and no secret (a public client), then UserInfo with the access token.
    await expect.poll(() => providerFetches.length).toBe(4);
    const seen = providerFetches.map(({ method, url, authorization: auth, origin, body, status }) => ({
      method,
      path: new URL(url).pathname,
      auth,
      ...(url.endsWith('/openid-configuration') ? {} : { origin }),
      body: body === null ? null : Object.keys(Object.fromEntries(new URLSearchParams(body))).sort(),
      status,
    }));
    expect(seen).toEqual([
      { method: 'GET', path: '/.well-known/openid-configuration', auth: null, body: null, status: 200 },
      { method: 'GET', path: '/.well-known/openid-configuration', auth: null, body: null, status: 200 },
      { method: 'POST', path: '/api/oauth/token', auth: null, origin: spaOrigin, body: ['client_id', 'code', 'code_verifier', 'grant_type', 'redirect_uri'], status: 200 },
      { method: 'GET', path: '/api/oauth/userinfo', auth: `Bearer ${result!.access_token as string}`, origin: spaOrigin, body: null, status: 200 },
    ]);
    expect(new URLSearchParams(providerFetches[2]!.body!).get('client_id')).toBe(app.client_id);
    expect(pageProblems).toEqual([]);
  });

  it('the app verifies the ID token in the browser too: jose against the JWKS, from its origin (CORS)', async () => {
    const { id_token } = (await page.evaluate(() => (window as unknown as SpaWindow).spa.user()))!;
    expect(await verifyInBrowser(id_token)).toMatchObject({
      protectedHeader: { alg: 'RS256', kid: decodeProtectedHeader(id_token).kid, typ: 'JWT' },
      payload: { iss: issuer, aud: app.client_id, sub: String(user.id) },
    });
  });

  it('signs in again without a consent page (remembered), and oidc-client-ts refuses a tampered nonce and a UserInfo answer for another subject', async () => {
    /** Replaces one claim in the ID token of the token response (the signature no longer matters to oidc-client-ts). */
    const tamperIdToken = async (claims: Record<string, unknown>) => {
      await page.route(`${issuer}/api/oauth/token`, async (route) => {
        const response = await route.fetch();
        const body = (await response.json()) as { id_token: string };
        const [header, payload, signature] = body.id_token.split('.');
        const changed = { ...(JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>), ...claims };
        body.id_token = [header, Buffer.from(JSON.stringify(changed)).toString('base64url'), signature].join('.');
        await route.fulfill({ response, json: body });
      });
    };
    expect(await signInAgain()).toEqual({ status: 'signed in', error: '' });

    await tamperIdToken({ nonce: 'not-the-nonce-sent' });
    expect(await signInAgain()).toEqual({ status: 'error', error: 'nonce in id_token does not match nonce in client storage' });
    await page.unroute(`${issuer}/api/oauth/token`);

    await page.route(`${issuer}/api/oauth/userinfo`, async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, json: { ...((await response.json()) as object), sub: String(user.id + 1000) } });
    });
    expect(await signInAgain()).toEqual({ status: 'error', error: 'subject from UserInfo response does not match subject in ID Token' });
    await page.unroute(`${issuer}/api/oauth/userinfo`);

    expect(await signInAgain()).toEqual({ status: 'signed in', error: '' });
    pageProblems.length = 0;
  });

  it('the operator rotates the signing keys while the app is signed in: its ID token still verifies; the next sign-in gets the new kid, which verifies in the browser too', async () => {
    const before = (await page.evaluate(() => (window as unknown as SpaWindow).spa.user()))!.id_token;
    const oldKid = decodeProtectedHeader(before).kid!;
    // The app has fetched the JWKS before (the test above): the browser may keep it as it is told.
    expect(await verifyInBrowser(before)).toMatchObject({ protectedHeader: { kid: oldKid } });

    const rotated = await admin<{ kid: string; retired: string[] }>('keys', 'rotate');
    expect(rotated.retired).toEqual([oldKid]);
    expect(await verifyInBrowser(before)).toMatchObject({ protectedHeader: { kid: oldKid } });

    // Instances read the signing key again within 30 s (docs/oauth.md#signing-keys).
    t.clock.advance(30_000);
    expect(await signInAgain()).toEqual({ status: 'signed in', error: '' });
    const after = (await page.evaluate(() => (window as unknown as SpaWindow).spa.user()))!.id_token;
    expect(decodeProtectedHeader(after).kid).toBe(rotated.kid);
    // A relying party on the server side (no HTTP cache) verifies it at once...
    const jwks = createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`));
    expect((await jwtVerify(after, jwks, { issuer, audience: app.client_id, currentDate: new Date(t.clock.now()) })).protectedHeader.kid).toBe(rotated.kid);
    // ...and so must the app in the browser, whose HTTP cache holds the JWKS it fetched before.
    expect(await verifyInBrowser(after)).toMatchObject({ protectedHeader: { kid: rotated.kid }, payload: { sub: String(user.id) } });
    expect(await verifyInBrowser(before)).toMatchObject({ protectedHeader: { kid: oldKid } });
    pageProblems.length = 0;
  });

  it('signs out with signoutRedirect: the provider ends its session and returns to the registered post-logout URI with the state', async () => {
    const idToken = (await page.evaluate(() => (window as unknown as { spa: { user(): Promise<{ id_token: string }> } }).spa.user())).id_token;
    const requests: URL[] = [];
    const onRequest = (request: BrowserRequest) => {
      if (request.isNavigationRequest() && request.url().startsWith(`${issuer}/oauth/logout`)) requests.push(new URL(request.url()));
    };
    page.on('request', onRequest);
    await Promise.all([page.waitForURL(`${spaOrigin}/signed-out?**`), page.click('#signout')]);
    page.off('request', onRequest);
    expect(requests).toHaveLength(1);
    expect(Object.fromEntries(requests[0]!.searchParams)).toEqual({
      id_token_hint: idToken,
      post_logout_redirect_uri: `${spaOrigin}/signed-out`,
      state: expect.stringMatching(/^[\da-f]{32}$/),
    });
    expect(new URL(page.url()).searchParams.get('state')).toBe(requests[0]!.searchParams.get('state'));
    const { result } = await settled(page, 'signed out');
    expect(result).toEqual({ signed_out: true, user: null, state: { signed_out_from: '/callback' } });

    // The provider's session is over: its account page asks to sign in again.
    await page.goto(`${issuer}/account`);
    expect(new URL(page.url()).pathname).toBe('/signin');
    expect(pageProblems).toEqual([]);
  });
});
