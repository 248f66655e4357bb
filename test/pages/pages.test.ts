/** getHome, getAsset, and the headers every page and public resource gets. */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleBrowserCode, PAGE_SCRIPTS } from '../../src/pages/browser-code.js';
import { Agent, makeUser, signedInAgent, startServer, type TestServer } from '../helpers.js';

let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(async () => t?.close());

describe('getHome', () => {
  it('greets a visitor without starting a session, and a signed-in user by name', async () => {
    const res = await fetch(`${t.baseUrl}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.getSetCookie()).toEqual([]);
    expect(await res.text()).toContain('<a class="button" href="/signup">Create an account</a>');
    const { agent, user } = await signedInAgent(t);
    const page = await (await agent.fetch('/')).text();
    expect(page).toContain(`<h1>Hello, ${user.name}</h1>`);
    expect(page).toMatch(/<form method="post" action="\/signout" class="inline"><input type="hidden" name="_csrf" value="[\w-]+">/);
  });

  it('sends the security headers: strict CSP, no framing, no referrer', async () => {
    const res = await fetch(`${t.baseUrl}/`);
    const csp = res.headers.get('content-security-policy')!;
    for (const part of ["default-src 'self'", "script-src 'self'", "frame-ancestors 'none'", "object-src 'none'", "form-action 'self'"]) expect(csp).toContain(part);
    expect(csp).not.toContain('upgrade-insecure-requests');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cross-origin-resource-policy')).toBe('same-origin');
  });
});

describe('getAsset', () => {
  it('serves the pages scripts and stylesheet with their types', async () => {
    for (const [file, type] of [['play.js', 'text/javascript; charset=utf-8'], ['site.css', 'text/css; charset=utf-8']]) {
      const res = await fetch(`${t.baseUrl}/assets/${file}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(type);
      expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    }
  });

  it('serves the icon every page names in its head, so browsers ask for no /favicon.ico', async () => {
    const res = await fetch(`${t.baseUrl}/assets/favicon.svg`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    expect(await res.text()).toBe(fs.readFileSync('src/pages/assets/favicon.svg', 'utf8'));
    const home = await (await fetch(`${t.baseUrl}/`)).text();
    expect(home).toContain('<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">');
  });

  it('serves each page script as bundled from src/pages/scripts/, the WebAuthn library inside the pages that use it', async () => {
    const bundled = await bundleBrowserCode();
    for (const page of PAGE_SCRIPTS) {
      const res = await fetch(`${t.baseUrl}/assets/${page}.js`);
      expect([page, res.status, res.headers.get('content-type'), res.headers.get('cache-control')]).toEqual([page, 200, 'text/javascript; charset=utf-8', 'public, max-age=300']);
      const body = await res.text();
      expect(body).toBe(bundled.get(`assets/${page}.js`));
      // An IIFE, no module syntax: a classic <script> runs it.
      expect([page, body.startsWith('"use strict";(()=>{')]).toEqual([page, true]);
      expect([page, body.includes('navigator.credentials.get(')]).toEqual([page, page === 'signin' || page === 'account']);
    }
    // The library is no longer a file of its own.
    const res = await fetch(`${t.baseUrl}/assets/simplewebauthn-browser.js`);
    expect([res.status, await res.json()]).toEqual([404, { message: 'No such asset' }]);
  });

  it('is 404 for an unknown or malformed name, never a file outside assets/', async () => {
    for (const file of ['nope.js', 'nope.svg', '..%2Fhtml.ts', 'play.ts', 'api.js', 'common.js', '.hidden.js', 'favicon.ico']) {
      const res = await fetch(`${t.baseUrl}/assets/${file}`);
      expect([res.status, await res.json()]).toEqual([404, { message: 'No such asset' }]);
    }
  });
});

describe('public resources', () => {
  it('pictures and users/info may be read from any origin (CORP cross-origin), and start no session', async () => {
    const user = await makeUser(t);
    const agent = new Agent(t);
    for (const path of [`/pfp/small/${user.id}.webp`, `/api/users/info?id=${user.id}`]) {
      const res = await agent.fetch(path);
      expect(res.status).toBe(200);
      expect(res.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
      expect(res.headers.getSetCookie()).toEqual([]);
    }
  });
});

describe('error pages', () => {
  it('are headed by what the status means to a person, with the specific reason below', async () => {
    const heading = async (res: Response) => [res.status, /<h1>([^<]*)<\/h1>\n<p class="error" id="error-message">([^<]*)<\/p>/.exec(await res.text())?.slice(1)];
    // A 404 is an ordinary miss: said calmly, without the error style (test/browser/not-found.test.ts).
    const calm = async (res: Response) => [res.status, /<h1>([^<]*)<\/h1>\n<p id="error-message">([^<]*)<\/p>/.exec(await res.text())?.slice(1)];
    expect(await calm(await fetch(`${t.baseUrl}/users/999999`))).toEqual([404, ['Page not found', 'User not found']]);
    expect(await heading(await fetch(`${t.baseUrl}/users/abc`))).toEqual([400, ['This request cannot be used', expect.any(String)]]);
    const { agent } = await signedInAgent(t);
    expect(await heading(await agent.fetch('/moderation'))).toEqual([403, ['You are not allowed to do this', 'Only moderators may see this page']]);
    const notModerator = await (await agent.fetch('/moderation')).text();
    expect(notModerator).toContain('<title>You are not allowed to do this (error 403)</title>');
  });

  it('has a heading of its own for each status a page can answer', async () => {
    const { errorPage } = await import('../../src/pages/pages.js');
    const headings = Object.fromEntries(
      [400, 401, 403, 404, 409, 413, 429, 500, 503, 418, 502].map((status) => [status, /<h1>([^<]*)<\/h1>/.exec(errorPage({ user: undefined, csrfToken: '', status, message: 'm' }))![1]]),
    );
    expect(headings).toEqual({
      400: 'This request cannot be used',
      401: 'Sign in to continue',
      403: 'You are not allowed to do this',
      404: 'Page not found',
      409: 'This cannot be done as things are now',
      413: 'That is too large',
      429: 'Too many tries: wait a moment',
      500: 'Something went wrong on our side',
      503: 'The service is unavailable for a moment',
      418: 'This request cannot be used',
      502: 'Something went wrong on our side',
    });
    expect(errorPage({ user: undefined, csrfToken: '', status: 401, message: 'Sign in first' })).toContain('<p><a href="/signin">Sign in</a></p>');
  });
});

describe('an unknown address', () => {
  const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

  it('a browser asking for HTML gets the 404 page: the site layout, the page CSP, a link home, the signed-in header', async () => {
    const res = await fetch(`${t.baseUrl}/nope/deeper?x=1`, { headers: { Accept: BROWSER_ACCEPT } });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('vary')).toBe('Accept');
    expect(res.headers.get('content-security-policy')).toContain("style-src 'self'");
    expect(res.headers.getSetCookie()).toEqual([]);
    const page = await res.text();
    expect(page).toContain('<title>Page not found</title>');
    expect(page).toContain(
      '<h1>Page not found</h1>\n<p id="error-message">There is no page at /nope/deeper. The link may be mistyped, or the page may have moved.</p>\n<ul class="plain" id="ways-on"><li><a href="/">Back to the home page</a></li><li><a href="/games">Browse the games</a></li></ul>',
    );
    const head = await fetch(`${t.baseUrl}/nope`, { method: 'HEAD', headers: { Accept: BROWSER_ACCEPT } });
    expect([head.status, head.headers.get('content-type')]).toEqual([404, 'text/html; charset=utf-8']);
    const { agent, user } = await signedInAgent(t);
    const signedIn = await agent.fetch('/nope', { headers: { Accept: BROWSER_ACCEPT } });
    expect(signedIn.status).toBe(404);
    expect(await signedIn.text()).toContain(`<span class="who"><span class="who-label">Signed in as </span><strong>${user.name}</strong></span>`);
  });

  it('API clients keep JSON: no HTML in Accept, a program address, or a method other than GET', async () => {
    const cases: [string, string, Record<string, string>, string][] = [
      ['GET', '/nope', {}, 'No such route: GET /nope'],
      ['GET', '/nope', { Accept: '*/*' }, 'No such route: GET /nope'],
      ['GET', '/nope', { Accept: 'application/json, text/html;q=0.5' }, 'No such route: GET /nope'],
      ['GET', '/api/nope', { Accept: BROWSER_ACCEPT }, 'No such route: GET /api/nope'],
      ['GET', '/api/oauth/nope', { Accept: BROWSER_ACCEPT }, 'No such route: GET /api/oauth/nope'],
      ['GET', '/.well-known/nope', { Accept: BROWSER_ACCEPT }, 'No such route: GET /.well-known/nope'],
      ['GET', '/pfp/nope', { Accept: BROWSER_ACCEPT }, 'Profile picture not found'],
      ['GET', '/sdk/nope.js', { Accept: BROWSER_ACCEPT }, 'No such route: GET /sdk/nope.js'],
      ['DELETE', '/nope', { Accept: BROWSER_ACCEPT }, 'No such route: DELETE /nope'],
    ];
    for (const [method, path, headers, message] of cases) {
      const res = await fetch(`${t.baseUrl}${path}`, { method, headers });
      expect([method, path, res.status, res.headers.get('content-type'), await res.json()]).toEqual([method, path, 404, 'application/json; charset=utf-8', { message }]);
      expect(res.headers.get('content-security-policy')).toBe("default-src 'none';frame-ancestors 'none'");
      expect(res.headers.get('vary')).toBe(method === 'GET' ? 'Accept' : null);
    }
  });
});
