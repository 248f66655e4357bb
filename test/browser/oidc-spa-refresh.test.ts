/**
 * A single-page app on another site keeps its user signed in with refresh tokens (issue 40), in
 * Chromium with third-party cookies blocked: oidc-client-ts's automatic silent renew, as a public
 * client registered with grant_types [authorization_code, refresh_token], asking for
 * `offline_access`.
 *
 * The provider is http://localhost:<port>, the app http://127.0.0.1:<port2>: two sites. The browser
 * runs on a profile whose cookie setting is "Block third-party cookies" (launchWithCookieSetting);
 * the first test shows that a cookie of the provider's site is then not sent from a frame in the
 * app's page, while a profile that allows them sends it. A hidden-iframe silent renew (prompt=none,
 * how an SPA renewed before refresh tokens) therefore gets login_required: the provider never sees
 * its session there (its session cookie, SameSite=Lax, would not go to a cross-site frame either).
 * With a refresh token the renewal is a CORS token request and needs no cookie at all.
 *
 * Time: the server's clock is the test's (t.clock), the browser's is Playwright's (context.clock,
 * installed before the app loads; it runs on in real time). Each lifetime moves both by the access
 * token's 600 s: the server's so that the old access token has expired there, the browser's so that
 * oidc-client-ts's expiring timer (60 s before expires_in) fires and renews.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { BrowserContext, Page, Request as BrowserRequest } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, makeUser, startServer, tempDir, TEST_PASSWORD, type TestServer } from '../helpers.js';
import { profileClaims, registerApp, serverSeconds, type RegisteredApp } from '../oidc-flow.js';
import type { UserRecord } from '../../src/domain/users.js';
import { hasChromium, launchWithCookieSetting, SCREENSHOTS_DIR } from './chromium.js';

const root = path.resolve(import.meta.dirname, '..', '..');
const SPA_PAGE = fs.readFileSync(path.join(root, 'test/fixtures/oidc-spa-refresh/index.html'));
const OIDC_CLIENT_TS = path.join(root, 'node_modules/oidc-client-ts/dist/browser/oidc-client-ts.min.js');
const LIFETIME_MS = 600_000;

let t: TestServer;
let issuer: string;
let spaServer: http.Server;
let spaPort: number;
let spaOrigin: string;
const spaConfig: { authority?: string; client_id?: string; scope: string } = { scope: 'openid profile' };
let app: RegisteredApp;
let user: UserRecord;
let profileDir: string;
let context: BrowserContext;
let page: Page;
/** The Cookie header of each request the cookie probe saw, by path. */
const probeCookies: { path: string; cookie: string | null }[] = [];
/** What the app's pages sent to the provider: token requests (by grant type) and authorization requests. */
const tokenRequests: { grant_type: string | null; scope: string | null; origin: string | null; cookie: string | null; status?: number }[] = [];
const authorizationRequests: { prompt: string | null; frame: 'top' | 'iframe'; cookie: string | null }[] = [];
const userInfoRequests: { authorization: string | null; status?: number }[] = [];
const pageProblems: string[] = [];

/**
 * The app's own server: the page for every path, /config.json and oidc-client-ts; and a cookie
 * probe, reached as http://localhost:<port2>/probe/... (the provider's site: cookies ignore ports).
 */
function serveSpa(req: http.IncomingMessage, res: http.ServerResponse): void {
  const pathname = new URL(req.url!, 'http://spa').pathname;
  const send = (type: string, body: Buffer | string) => {
    res.setHeader('Content-Type', type);
    res.end(body);
  };
  if (pathname.startsWith('/probe/')) {
    probeCookies.push({ path: pathname, cookie: req.headers.cookie ?? null });
    // SameSite=None and Secure (localhost is a secure context): only the third-party setting can hold it back.
    if (pathname === '/probe/set') res.setHeader('Set-Cookie', 'probe=1; Path=/; SameSite=None; Secure');
    return send('text/html; charset=utf-8', '<!doctype html><title>probe</title><p>probe</p>');
  }
  if (pathname === '/config.json') return send('application/json', JSON.stringify(spaConfig));
  if (pathname === '/vendor/oidc-client-ts.min.js') return send('text/javascript', fs.readFileSync(OIDC_CLIENT_TS));
  if (pathname === '/favicon.ico') {
    res.statusCode = 404;
    return send('text/plain', 'not found');
  }
  send('text/html; charset=utf-8', SPA_PAGE);
}

function watch(tab: Page): Page {
  tab.setDefaultTimeout(10_000);
  tab.on('pageerror', (err) => pageProblems.push(`pageerror: ${err.message}`));
  tab.on('console', (msg) => {
    if (msg.type() === 'error' && msg.location().url.startsWith(spaOrigin)) pageProblems.push(`console: ${msg.text()} (${msg.location().url})`);
  });
  return tab;
}

/** Records what the app's pages ask of the provider (the provider's own pages' requests are left out). */
function record(request: BrowserRequest): void {
  void (async () => {
    const url = new URL(request.url());
    if (url.origin !== issuer) return;
    const headers = await request.allHeaders();
    if (url.pathname === '/oauth' && request.isNavigationRequest()) {
      authorizationRequests.push({ prompt: url.searchParams.get('prompt'), frame: request.frame().parentFrame() ? 'iframe' : 'top', cookie: headers.cookie ?? null });
      return;
    }
    if (!request.frame().url().startsWith(spaOrigin)) return;
    const response = await request.response();
    if (url.pathname === '/api/oauth/token' && request.method() === 'POST') {
      const body = new URLSearchParams(request.postData() ?? '');
      tokenRequests.push({ grant_type: body.get('grant_type'), scope: body.get('scope'), origin: headers.origin ?? null, cookie: headers.cookie ?? null, status: response?.status() });
    } else if (url.pathname === '/api/oauth/userinfo') {
      userInfoRequests.push({ authorization: headers.authorization ?? null, status: response?.status() });
    }
  })();
}

interface SpaUser {
  access_token: string;
  has_refresh_token: boolean;
  scope: string;
  profile: Record<string, unknown>;
}
interface Spa {
  loaded: (SpaUser & { id_token: string })[];
  renewErrors: string[];
  signIn(extra?: Record<string, unknown>): Promise<void>;
  signInSilently(): Promise<{ access_token: string } | { error: string | null; message: string }>;
  user(): Promise<SpaUser | null>;
  userInfo(): Promise<{ status: number; body: Record<string, unknown> }>;
}
const spa = <T>(fn: (s: Spa) => T | Promise<T>): Promise<T> => page.evaluate<T>(`(${fn.toString()})(window.spa)`);

/** The sign-in from the app's button, through the provider's pages; resolves once the app shows it signed in. */
async function signIn(scope: string, { signInFirst }: { signInFirst: boolean }): Promise<string[]> {
  await page.goto(`${spaOrigin}/`);
  await page.waitForFunction(() => document.getElementById('status')!.textContent !== 'loading');
  const toProvider = page.waitForURL(signInFirst ? `${issuer}/signin?**` : `${issuer}/oauth?**`);
  // Not awaited in the page: signinRedirect navigates away.
  await page.evaluate(`void window.spa.signIn({ scope: ${JSON.stringify(scope)} })`);
  await toProvider;
  if (signInFirst) {
    await page.fill('input[name=name]', user.name);
    await page.fill('input[name=password]', TEST_PASSWORD);
    await Promise.all([page.waitForURL(`${issuer}/oauth?**`), page.click('button[type=submit]')]);
  }
  const consent = await page.locator('#scopes li').allTextContents();
  await Promise.all([page.waitForURL(`${spaOrigin}/callback?**`), page.click('#authorize')]);
  await page.waitForFunction(() => ['error', 'signed in'].includes(document.getElementById('status')!.textContent));
  expect({ status: await page.textContent('#status'), error: await page.textContent('#error') }).toEqual({ status: 'signed in', error: '' });
  return consent;
}

describe.skipIf(!hasChromium)('an SPA on another site stays signed in with refresh tokens (oidc-client-ts, third-party cookies blocked)', () => {
  beforeAll(async () => {
    t = await startServer();
    issuer = `http://localhost:${new URL(t.baseUrl).port}`;
    t.config.publicUrl = issuer;
    spaServer = http.createServer(serveSpa);
    await new Promise<void>((resolve) => spaServer.listen(0, '127.0.0.1', resolve));
    spaPort = (spaServer.address() as AddressInfo).port;
    spaOrigin = `http://127.0.0.1:${spaPort}`;

    const developer = new Agent(t);
    await developer.signIn(await makeUser(t));
    app = await registerApp(developer, {
      name: 'Refreshing SPA',
      redirect_uris: [`${spaOrigin}/callback`, `${spaOrigin}/silent`],
      public: true,
      grant_types: ['authorization_code', 'refresh_token'],
    });
    spaConfig.authority = issuer;
    spaConfig.client_id = app.client_id;
    user = await makeUser(t);

    profileDir = tempDir('idp-spa-refresh-');
    context = await launchWithCookieSetting(profileDir, 'block');
    // The browser's clock is Playwright's from the first page on; it runs in real time until moved.
    await context.clock.install();
    context.on('request', record);
    page = watch(context.pages()[0] ?? (await context.newPage()));
  });
  afterAll(async () => {
    await context?.close();
    spaServer?.close();
    await t?.close();
    if (profileDir) fs.rmSync(profileDir, { recursive: true, force: true });
  });

  it("blocks third-party cookies: the provider's site's cookie is not sent from a frame in the app's page (a profile that allows them sends it)", async () => {
    const probe = `http://localhost:${spaPort}/probe`;
    const framed = async (tab: Page) => {
      await tab.goto(`${probe}/set`);
      await tab.goto(`${probe}/top`);
      await tab.goto(`${spaOrigin}/`);
      await tab.evaluate((src) => {
        const frame = document.createElement('iframe');
        frame.src = src;
        document.body.append(frame);
      }, `${probe}/framed`);
      await expect.poll(() => probeCookies.some((p) => p.path === '/probe/framed')).toBe(true);
      const seen = probeCookies.map(({ path: p, cookie }) => ({ path: p, cookie }));
      probeCookies.length = 0;
      return seen;
    };
    expect(await framed(page)).toEqual([
      { path: '/probe/set', cookie: null },
      { path: '/probe/top', cookie: 'probe=1' },
      { path: '/probe/framed', cookie: null },
    ]);
    // The setting is what holds it back: the same steps on a profile that allows third-party cookies.
    const allowingDir = tempDir('idp-spa-allow-');
    const allowing = await launchWithCookieSetting(allowingDir, 'allow');
    try {
      expect(await framed(allowing.pages()[0] ?? (await allowing.newPage()))).toEqual([
        { path: '/probe/set', cookie: null },
        { path: '/probe/top', cookie: 'probe=1' },
        { path: '/probe/framed', cookie: 'probe=1' },
      ]);
    } finally {
      await allowing.close();
      fs.rmSync(allowingDir, { recursive: true, force: true });
    }
    await context.clearCookies();
  });

  it('without a refresh token, a hidden-iframe silent renew (prompt=none) gets login_required', async () => {
    // Signed in without offline_access: no refresh token.
    expect(await signIn('openid profile', { signInFirst: true })).toEqual([
      'Sign you in with your account (your user id) openid',
      'See your name, profile picture and when you last changed them profile',
    ]);
    expect(await spa((s) => s.user().then((u) => u && { has_refresh_token: u.has_refresh_token, scope: u.scope }))).toEqual({ has_refresh_token: false, scope: 'openid profile' });
    // The provider's session is there for a top-level page...
    await expect.poll(() => authorizationRequests.filter((r) => r.frame === 'top' && r.cookie?.includes('idp.')).length).toBeGreaterThan(0);
    authorizationRequests.length = 0;
    // ...but not in the hidden iframe in the app's page.
    expect(await spa((s) => s.signInSilently())).toEqual({ error: 'login_required', message: 'The user is not signed in and prompt=none forbids asking' });
    expect(authorizationRequests).toEqual([{ prompt: 'none', frame: 'iframe', cookie: null }]);
    expect(tokenRequests.map((r) => r.grant_type)).toEqual(['authorization_code']);
  });

  it('with offline_access, automatic silent renew keeps the person signed in across three access-token lifetimes, each renewal by grant_type=refresh_token', async () => {
    const signedInAt = serverSeconds(t);
    // offline_access is new to this app's consent: the provider asks, naming the app.
    expect(await signIn('openid profile offline_access', { signInFirst: false })).toEqual([
      'Sign you in with your account (your user id) openid',
      'See your name, profile picture and when you last changed them profile',
      'Stay signed in to Refreshing SPA, even when you are away offline_access',
    ]);
    const first = (await spa((s) => s.user()))!;
    expect({ has_refresh_token: first.has_refresh_token, scope: first.scope }).toEqual({ has_refresh_token: true, scope: 'openid profile offline_access' });
    expect(tokenRequests.map((r) => r.grant_type)).toEqual(['authorization_code', 'authorization_code']);
    authorizationRequests.length = 0;
    userInfoRequests.length = 0;
    const loadedBefore = await spa((s) => s.loaded.length);

    let accessToken = first.access_token;
    const jwks = createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`));
    for (let lifetime = 1; lifetime <= 3; lifetime++) {
      // The access token's 600 s pass, at the provider and in the browser.
      t.clock.advance(LIFETIME_MS);
      const expired = await fetch(`${issuer}/api/oauth/userinfo`, { headers: { Authorization: `Bearer ${accessToken}` } });
      expect({ lifetime, status: expired.status, body: await expired.json() }).toEqual({ lifetime, status: 401, body: { message: 'Access token has expired' } });
      await context.clock.fastForward(LIFETIME_MS);

      // oidc-client-ts renews by itself: a refresh-token grant, then UserInfo with the new token.
      await expect.poll(() => spa((s) => s.loaded.length), { timeout: 10_000 }).toBe(loadedBefore + lifetime);
      const renewed = (await spa((s) => s.loaded.at(-1)))!;
      expect(renewed.access_token).not.toBe(accessToken);
      expect(renewed).toMatchObject({ has_refresh_token: true, scope: 'openid profile offline_access', profile: { sub: String(user.id), name: user.name } });
      // The renewed ID token (OpenID Connect Core 12.2), which oidc-client-ts checked against the
      // first (same sub, auth_time, azp), is the provider's, issued now, for the same sign-in.
      const now = serverSeconds(t);
      const { payload } = await jwtVerify(renewed.id_token, jwks, { issuer, audience: app.client_id, algorithms: ['RS256'], currentDate: new Date(t.clock.now()) });
      expect(payload).toMatchObject({ sub: String(user.id), aud: app.client_id, iat: now, exp: now + 600, auth_time: signedInAt });
      expect(payload.nonce).toBeUndefined();
      accessToken = renewed.access_token;
    }

    // Every renewal was a refresh-token grant from the app's origin, without cookies, answered 200;
    // none went through an iframe or the authorization endpoint.
    await expect.poll(() => tokenRequests.length).toBe(5);
    expect(tokenRequests.slice(2)).toEqual(
      [1, 2, 3].map(() => ({ grant_type: 'refresh_token', scope: 'openid profile offline_access', origin: spaOrigin, cookie: null, status: 200 })),
    );
    expect(authorizationRequests).toEqual([]);
    expect(await spa((s) => s.renewErrors)).toEqual([]);
    await expect.poll(() => userInfoRequests.length).toBe(3);
    expect(userInfoRequests.map((r) => r.status)).toEqual([200, 200, 200]);

    // 30 minutes after the sign-in, the app still reads the person's profile with its current token.
    expect(serverSeconds(t) - signedInAt).toBe(1800);
    expect(await spa((s) => s.userInfo())).toEqual({ status: 200, body: { sub: String(user.id), ...profileClaims(issuer, (await t.store.users.getUser(user.id))!) } });
    expect(await page.textContent('#status')).toBe('signed in');
    await page.screenshot({ path: path.join(SCREENSHOTS_DIR, 'oidc-spa-refresh-signed-in.png'), fullPage: true });
    expect(pageProblems).toEqual([]);
  });
});
