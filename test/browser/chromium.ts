/**
 * Debian's Chromium (/usr/bin/chromium) driven by playwright-core: no downloaded browsers.
 * With CI=true a missing Chromium fails the suite; locally the browser suites skip with a notice.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { TEST_PASSWORD } from '../helpers.js';
import { precondition } from '../preconditions.js';

const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = precondition('the browser suites', fs.existsSync(CHROMIUM_PATH), `no Chromium at ${CHROMIUM_PATH} (apt-get install chromium)`);

/** Launch flags that keep Chromium off the network it cannot reach here (docs/decisions.md#tooling-facts-the-code-relies-on). */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-dev-shm-usage',
];

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}

/**
 * A browser with a profile of its own in `userDataDir` (a new, empty folder), whose cookie setting
 * is written into the profile's Preferences before it starts, as the settings page would:
 * `profile.cookie_controls_mode` 1 is "Block third-party cookies", 0 "Allow third-party cookies".
 * (Playwright's own contexts cannot be given this setting; a persistent context's profile can.)
 */
export async function launchWithCookieSetting(userDataDir: string, thirdPartyCookies: 'block' | 'allow'): Promise<BrowserContext> {
  const block = thirdPartyCookies === 'block';
  fs.mkdirSync(path.join(userDataDir, 'Default'), { recursive: true });
  fs.writeFileSync(path.join(userDataDir, 'Default', 'Preferences'), JSON.stringify({ profile: { cookie_controls_mode: block ? 1 : 0, block_third_party_cookies: block } }));
  return chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}

/** Screenshots land here (ignored by git), so a person can look at what the tests saw. */
/**
 * A new browser (context) of the given size, signed in as `name` (with TEST_PASSWORD) through the
 * sign-in form; it ends on the account page.
 */
export async function signedInPage(browser: Browser, baseUrl: string, name: string, viewport = { width: 1280, height: 800 }): Promise<Page> {
  const page = await (await browser.newContext({ viewport })).newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(`${baseUrl}/signin`);
  await page.fill('input[name=name]', name);
  await page.fill('input[name=password]', TEST_PASSWORD);
  await Promise.all([page.waitForURL(`${baseUrl}/account`), page.click('button[type=submit]')]);
  return page;
}

export const SCREENSHOTS_DIR = path.resolve(import.meta.dirname, '..', '..', 'test-artifacts', 'screenshots');
fs.mkdirSync(SCREENSHOTS_DIR, { recursive: true });

/** A stand-in for an OAuth client's redirect_uri: a page that only says it was reached. */
export interface CallbackServer {
  /** `http://127.0.0.1:<port>/callback` */
  url: string;
  close(): void;
}

export async function startCallbackServer(): Promise<CallbackServer> {
  const server = http.createServer((_req, res) => {
    res.setHeader('Content-Type', 'text/html');
    res.end('<!doctype html><title>client callback</title><h1>client callback</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`, close: () => server.close() };
}
