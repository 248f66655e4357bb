/**
 * docs/walkthrough.md "In a browser", followed in the order the doc gives its steps, as `demo` (the
 * doc's step 1 offers that sign-in): the service as `npm start` runs it, with its demo data, on a
 * port of its own (PUBLIC_URL, as the doc says to read for http://localhost:3000); the demo games'
 * fixed addresses (http://localhost:8080/ and :8081/) are routed by the browser to
 * examples/game/serve.mjs and the static example game on free ports. Each step checks what the doc
 * says a reader sees: the game flow's dialog, the consent page, the code on the callback, and that
 * remembered consent skips both.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/free-port.js';
import { serveStaticGame } from '../../scripts/serve-static-game.js';
import { tempDir } from '../helpers.js';
import { spawnService, type SpawnedService } from '../spawn-service.js';
import { hasChromium, launchChromium } from './chromium.js';

const root = path.resolve(import.meta.dirname, '..', '..');
const dir = tempDir();
const doc = fs.readFileSync(path.join(root, 'docs/walkthrough.md'), 'utf8');
/** The numbered steps of "In a browser": their bold titles and their text, in the doc's order. */
const steps = (() => {
  const section = doc.slice(doc.indexOf('## In a browser'), doc.indexOf('## With curl'));
  const starts = [...section.matchAll(/^\d+\. \*\*(.+?)\*\*/gm)];
  return starts.map((m, i) => ({ title: m[1]!, text: section.slice(m.index, starts[i + 1]?.index ?? section.length) }));
})();

let service: SpawnedService;
let serviceUrl: string;
let gameBackend: ChildProcess;
let staticGame: Awaited<ReturnType<typeof serveStaticGame>>;
let browser: Browser;
let context: BrowserContext;
let page: Page;

/** The doc's address, on this test's service. */
const here = (url: string) => url.replaceAll('http://localhost:3000', serviceUrl).replaceAll('localhost%3A3000', encodeURIComponent(serviceUrl.slice('http://'.length)));

/** The traditional-flow link the doc gives for the demo app. */
function traditionalLink(): string {
  const step = steps.find((s) => s.title === 'Traditional flow')!;
  return here(/http:\/\/localhost:3000\/oauth\?\S+/.exec(step.text)![0]);
}

/** The example game (examples/game/) framed by /play/1, once its buttons are there. */
async function playGame1(): Promise<Frame> {
  await page.goto(`${serviceUrl}/play/1`);
  await page.frameLocator('#game').locator('#authorize').waitFor();
  return page.frames().find((f) => f.url().startsWith('http://localhost:8080/'))!;
}

/** Presses the game's "Sign in with Identity": whether the play page's dialog opened before an answer came. */
async function pressSignIn(game: Frame): Promise<'dialog' | 'answer without a dialog'> {
  await game.getByRole('button', { name: 'Sign in with Identity' }).click();
  await expect.poll(async () => (await page.isVisible('#consent[open]')) || (await game.evaluate(() => (window as unknown as { received: { type: string }[] }).received.some((m) => m.type === 'authorized')))).toBe(true);
  return (await page.isVisible('#consent[open]')) ? 'dialog' : 'answer without a dialog';
}

/**
 * The address the browser is sent to on the demo app's callback after `action`. Chromium follows
 * the service's redirect there without the test's routes (a redirect is not routed), so the
 * request is read, not its answer: nothing need listen on localhost:8080.
 */
async function callbackAfter(action: () => Promise<unknown>): Promise<string> {
  const isCallback = (r: import('playwright-core').Request) => r.url().startsWith('http://localhost:8080/callback?');
  const request = page.waitForRequest(isCallback);
  const settled = Promise.race([page.waitForEvent('requestfailed', isCallback), page.waitForEvent('requestfinished', isCallback)]);
  await action().catch((err: Error) => {
    if (!err.message.includes('net::ERR_')) throw err;
  });
  const url = (await request).url();
  // The browser's own error page (or whatever answers there) loads before the next step navigates.
  await settled;
  // The error page commits a moment after the request failed: wait for it, or a navigation made
  // next is interrupted by it ("interrupted by another navigation to chrome-error://chromewebdata/").
  await page.waitForURL((u) => u.href.startsWith('chrome-error://') || u.href.startsWith('http://localhost:8080/callback'), { waitUntil: 'load' });
  return url;
}

/** The demo app's callback, as the example backend gets it: a code for demo with the scopes of the link. */
async function redeemDemoCallback(url: string): Promise<void> {
  const back = new URL(url);
  expect(`${back.origin}${back.pathname}`).toBe('http://localhost:8080/callback');
  expect([back.searchParams.get('state'), back.searchParams.get('iss')]).toEqual(['xyz', serviceUrl]);
  const token = await fetch(`${serviceUrl}/api/oauth/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'authorization_code', code: back.searchParams.get('code')!, client_id: 'demo_client', client_secret: 'demo-secret', redirect_uri: 'http://localhost:8080/callback' }),
  });
  expect(token.status).toBe(200);
  const { access_token } = (await token.json()) as { access_token: string };
  const whois = await (await fetch(`${serviceUrl}/api/oauth/whois`, { headers: { Authorization: `Bearer ${access_token}` } })).json();
  expect(whois).toEqual({ id: 1, name: 'demo', pfpTimestamp: expect.any(Number), email: 'demo@example.com' });
}

/** What a reader sees at each step the doc numbers, by its title; the steps without a flow are not walked here. */
const walk: Record<string, (() => Promise<void>) | undefined> = {
  'Game flow': async () => {
    const game = await playGame1();
    expect(await pressSignIn(game), 'the doc says the play page "asks you in a dialog"').toBe('dialog');
    expect(await page.textContent('#consent-app')).toBe('Demo App');
    await page.click('#consent-authorize');
    await game.waitForFunction(() => document.getElementById('log')!.textContent.includes('backend  '));
    expect(await game.textContent('#log')).toMatch(/^backend {2}\{"id":1,"name":"demo","pfpTimestamp":\d+\}$/m);
  },
  'Traditional flow': async () => {
    await page.goto(traditionalLink());
    expect(new URL(page.url()).pathname, 'the doc says the consent page asks').toBe('/oauth');
    expect(await page.textContent('#app-name')).toBe('Demo App');
    await redeemDemoCallback(await callbackAfter(() => page.click('#authorize')));
  },
  'A static game with the SDK': async () => {
    await page.goto(`${serviceUrl}/play/2`);
    const status = page.frameLocator('#game').locator('#status');
    await expect.poll(() => status.textContent()).toBe('You are signed in to the service. Sign the game in to play as yourself.');
    await page.frameLocator('#game').getByRole('button', { name: 'Sign in with the identity service' }).click();
    await page.waitForSelector('#consent[open]');
    expect(await page.textContent('#consent-app')).toBe('Demo Game App');
    await page.click('#consent-authorize');
    await expect.poll(() => status.textContent()).toBe('Signed in as demo.');
  },
  'Remembered consent': async () => {
    // "straight to the callback with a new code, without a page"
    await redeemDemoCallback(await callbackAfter(() => page.goto(traditionalLink())));
    // "the game gets its code without the dialog"
    expect(await pressSignIn(await playGame1())).toBe('answer without a dialog');
  },
};

describe.skipIf(!hasChromium)('docs/walkthrough.md, in a browser, step by step as written', () => {
  beforeAll(async () => {
    const port = await freePort();
    serviceUrl = `http://localhost:${port}`;
    service = await spawnService({ port, env: { DATABASE_URL: path.join(dir, 'db.sqlite'), PICTURES_DIR: path.join(dir, 'pics'), PUBLIC_URL: serviceUrl, LOG_LEVEL: 'warn' } });
    const gamePort = await freePort();
    gameBackend = spawn(process.execPath, ['examples/game/serve.mjs'], { cwd: root, env: { PATH: process.env.PATH, PORT: String(gamePort), SERVICE_URL: serviceUrl }, stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      gameBackend.stdout!.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('Example game and client on')) resolve();
      });
      gameBackend.once('exit', (code) => reject(new Error(`serve.mjs exited with ${code}`)));
    });
    staticGame = await serveStaticGame(0, serviceUrl);
    browser = await launchChromium();
    context = await browser.newContext();
    // The demo data's games live at fixed addresses: the browser reaches them on this test's ports.
    const forward = (to: string) => async (route: import('playwright-core').Route) => {
      const from = new URL(route.request().url());
      const response = await route.fetch({ url: `${to}${from.pathname}${from.search}`, maxRedirects: 0 });
      await route.fulfill({ response });
    };
    await context.route('http://localhost:8080/**', forward(`http://127.0.0.1:${gamePort}`));
    await context.route('http://localhost:8081/**', forward(staticGame.url.replace(/\/$/, '')));
    // A page the browser got from a route has no address, so Chromium counts it as public and refuses
    // it the loopback service (local network access): what the games fetch from the service is routed too.
    await context.route((url) => url.origin === serviceUrl && /^\/(sdk|api\/oauth|pfp)\//.test(url.pathname), forward(service.url));
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await staticGame?.close();
    if (gameBackend && gameBackend.exitCode === null) {
      gameBackend.kill('SIGTERM');
      await new Promise((resolve) => gameBackend.once('exit', resolve));
    }
    await service?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('signed in as demo, each flow step shows what the doc says, in the order the doc gives', async () => {
    const walked = steps.map((s) => s.title).filter((title) => walk[title]);
    expect(walked.sort()).toEqual(['A static game with the SDK', 'Game flow', 'Remembered consent', 'Traditional flow']);
    await page.goto(`${serviceUrl}/signin`);
    await page.fill('input[name=name]', 'demo');
    await page.fill('input[name=password]', 'demo-password');
    await Promise.all([page.waitForURL(`${serviceUrl}/account`), page.click('main button[type=submit]')]);
    for (const { title } of steps) {
      const step = walk[title];
      if (!step) continue;
      try {
        await step();
      } catch (err) {
        throw new Error(`step "${title}" (order: ${steps.map((s) => s.title).join(', ')}): ${(err as Error).message}`, { cause: err });
      }
    }
  }, 180_000);
});
