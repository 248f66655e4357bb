/**
 * Every page a person reaches, signed out and signed in, checked by axe-core (test/browser/axe.ts:
 * WCAG 2.0/2.1/2.2 A and AA) at a desktop (1280x800) and a phone (390x844) width, with a
 * screenshot of each in test-artifacts/screenshots/. The HTML 404 page is checked here too.
 * Not /docs: the third-party reference renderer (Redoc) has violations of its own (contrast of
 * inline code, an unnamed select, scrollable regions without keyboard access, target size).
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerGame } from '../../src/games/games.js';
import type { UserRecord } from '../../src/store/types.js';
import { makeClient, makeUser, startServer, type TestClient, type TestServer, TEST_PASSWORD } from '../helpers.js';
import { expectNoAxeViolations } from './axe.js';
import { hasChromium, launchChromium, SCREENSHOTS_DIR } from './chromium.js';

let t: TestServer;
let browser: Browser;
let user: UserRecord;
let client: TestClient;
let gameServer: http.Server;
let gameId: number;

const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;

/** Opens `path`, checks it with axe and keeps a screenshot; `ready` waits for what the page's script fills in. */
async function check(page: Page, viewport: string, label: string, path_: string, ready?: string): Promise<void> {
  await page.goto(`${t.baseUrl}${path_}`);
  if (ready) await page.waitForSelector(ready);
  await page.screenshot({ path: path.join(SCREENSHOTS_DIR, `a11y-${viewport}-${label}.png`), fullPage: true });
  await expectNoAxeViolations(page, `${label} (${viewport})`);
}

describe.skipIf(!hasChromium)('accessibility (axe-core, WCAG 2.2 A and AA)', () => {
  beforeAll(async () => {
    t = await startServer();
    user = await makeUser(t);
    client = await makeClient(t, user.id);
    // The example game, on an origin of its own, for the play page and its consent dialog.
    const gamePage = fs.readFileSync(path.resolve(import.meta.dirname, '../../examples/game/index.html'));
    gameServer = http.createServer((_req, res) => res.setHeader('Content-Type', 'text/html').end(gamePage));
    await new Promise<void>((resolve) => gameServer.listen(0, '127.0.0.1', resolve));
    const gameOrigin = `http://127.0.0.1:${(gameServer.address() as AddressInfo).port}`;
    const game = await registerGame(
      { store: t.store, now: t.clock.now },
      { authorId: user.id, title: 'Some Game', url: `${gameOrigin}/?service=${encodeURIComponent(t.baseUrl)}&client_id=${client.clientId}&exchange=off` },
    );
    gameId = game.id;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    gameServer?.close();
    await t?.close();
  });

  it('the harness reports what axe finds: id, impact and the element', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.setContent('<!doctype html><html lang="en"><title>t</title><main><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="></main></html>');
    await expect(expectNoAxeViolations(page, 'sample')).rejects.toThrow('sample: image-alt (critical): Images must have alternative text\n    img');
    await context.close();
  });

  for (const viewport of VIEWPORTS) {
    describe(`${viewport.width}x${viewport.height}`, () => {
      let context: BrowserContext;
      let page: Page;
      beforeAll(async () => {
        context = await browser.newContext({ viewport });
        page = await context.newPage();
        page.setDefaultTimeout(10_000);
      });
      afterAll(async () => context?.close());

      it('signed out: home, sign-in, sign-up, forgot password, games, an error page, a link error, the 404 page', async () => {
        await check(page, viewport.name, 'home', '/');
        await check(page, viewport.name, 'signin', '/signin');
        await check(page, viewport.name, 'signup', '/signup');
        await check(page, viewport.name, 'forgot-password', '/forgot-password');
        await check(page, viewport.name, 'games', '/games', '#games');
        await check(page, viewport.name, 'error', '/oauth?response_type=code&client_id=nobody&redirect_uri=https%3A%2F%2Fx.example%2F&scope=userinfo');
        await check(page, viewport.name, 'link-error', `/reset-password?token=${'A'.repeat(43)}`);
        const res = await page.goto(`${t.baseUrl}/nope`);
        expect(res?.status()).toBe(404);
        expect(await page.textContent('h1')).toBe('Page not found');
        expect(await page.getAttribute('main a', 'href')).toBe('/');
        await check(page, viewport.name, 'not-found', '/nope');
      });

      it('signed in: account, apps, games, the consent page, the play page with its consent dialog', async () => {
        await page.goto(`${t.baseUrl}/signin`);
        await page.fill('input[name=name]', user.name);
        await page.fill('input[name=password]', TEST_PASSWORD);
        await Promise.all([page.waitForURL(`${t.baseUrl}/account`), page.click('main button[type=submit]')]);
        await check(page, viewport.name, 'account', '/account', '#sessions li.session');
        await check(page, viewport.name, 'apps', '/apps', `section.app[data-client-id="${client.clientId}"]`);
        await check(page, viewport.name, 'games-signed-in', '/games', '#games');
        const consent = new URLSearchParams({ response_type: 'code', client_id: client.clientId, redirect_uri: client.redirectUri, scope: 'userinfo email', state: 's' });
        await check(page, viewport.name, 'consent', `/oauth?${consent}`, '#authorize');
        // The play page with the game's consent dialog open.
        await page.goto(`${t.baseUrl}/play/${gameId}`);
        await page.frameLocator('#game').locator('#authorize').click();
        await page.waitForSelector('#consent[open]');
        await page.screenshot({ path: path.join(SCREENSHOTS_DIR, `a11y-${viewport.name}-play-consent.png`), fullPage: true });
        await expectNoAxeViolations(page, `play consent dialog (${viewport.name})`);
      });
    });
  }
});
