/**
 * Return paths as Chromium follows them (src/security/return-paths.ts; docs/account.md#return-paths):
 * a `return_to` that only looks like a path on this service must not take a passkey sign-in
 * elsewhere. Browsers strip TAB, CR and LF from a URL before parsing it, so `/\t/evil.example/`,
 * which starts with one slash, becomes `//evil.example/` in the page's `location.assign`.
 * The provider is http://localhost:<port> (PUBLIC_URL too): an IP address is no valid RP ID.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRecord } from '../../src/domain/users.js';
import { makeUser, startServer, TEST_PASSWORD, type TestServer } from '../helpers.js';
import { hasChromium, launchChromium } from './chromium.js';

let t: TestServer;
let browser: Browser;
let user: UserRecord;
let origin: string;

/** A browser with a virtual authenticator holding a passkey of `user`, signed out again. */
async function withPasskey(): Promise<{ context: BrowserContext; page: Page; elsewhere: string[] }> {
  const context = await browser.newContext();
  // Any address off the service is answered here (the test machine has no network) and noted.
  const elsewhere: string[] = [];
  await context.route(
    (url) => url.origin !== origin,
    (route) => {
      elsewhere.push(route.request().url());
      return route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>elsewhere</title><h1>elsewhere</h1>' });
    },
  );
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
  await page.goto(`${origin}/signin`);
  await page.fill('input[name=name]', user.name);
  await page.fill('input[name=password]', TEST_PASSWORD);
  await Promise.all([page.waitForURL(`${origin}/account`), page.click('button[type=submit]')]);
  await page.fill('#add-passkey-password', TEST_PASSWORD);
  await page.click('#add-passkey');
  await page.waitForSelector('#passkeys li.passkey');
  await Promise.all([page.waitForURL(`${origin}/`), page.click('form[action="/signout"] button')]);
  return { context, page, elsewhere };
}

describe.skipIf(!hasChromium)('return paths in Chromium', () => {
  beforeAll(async () => {
    t = await startServer();
    origin = `http://localhost:${new URL(t.baseUrl).port}`;
    t.config.publicUrl = origin;
    user = await makeUser(t);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('a passkey sign-in at /signin?return_to=%2F%09%2Fevil.example%2F stays on the service and goes to the account page', async () => {
    const { context, page, elsewhere } = await withPasskey();
    // The name field's autofill (conditional mediation) signs in at once with the only passkey.
    await page.goto(`${origin}/signin?return_to=%2F%09%2Fevil.example%2F`);
    await page.waitForURL((url) => url.pathname === '/account' || url.origin !== origin);
    expect(elsewhere).toEqual([]);
    expect(page.url()).toBe(`${origin}/account`);
    expect(await page.textContent('#profile-name')).toBe(user.name);
    await context.close();
  });

  it('the same by the button, with a newline and a backslash: never off the service', async () => {
    const { context, page, elsewhere } = await withPasskey();
    await page.addInitScript(() => {
      PublicKeyCredential.isConditionalMediationAvailable = () => Promise.resolve(false);
    });
    for (const returnTo of ['/\n/evil.example/', '/\\evil.example/', '/\r\n/evil.example/']) {
      await page.goto(`${origin}/signin?return_to=${encodeURIComponent(returnTo)}`);
      await Promise.all([page.waitForURL((url) => url.pathname === '/account' || url.origin !== origin), page.click('#passkey-signin')]);
      expect(elsewhere).toEqual([]);
      expect(page.url()).toBe(`${origin}/account`);
      await Promise.all([page.waitForURL(`${origin}/`), page.click('form[action="/signout"] button')]);
    }
    await context.close();
  });

  it('a path that is one still leads there after a passkey sign-in', async () => {
    const { context, page, elsewhere } = await withPasskey();
    await page.goto(`${origin}/signin?return_to=${encodeURIComponent('/apps?x=1#top')}`);
    await page.waitForURL((url) => url.pathname === '/apps' || url.origin !== origin);
    expect(elsewhere).toEqual([]);
    expect(page.url()).toBe(`${origin}/apps?x=1#top`);
    await context.close();
  });
});
