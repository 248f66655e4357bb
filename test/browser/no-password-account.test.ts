/**
 * An account made through an upstream, on its account page in Chromium (issue 51, item 2;
 * docs/account.md#confirming-through-a-linked-account), at a desktop's and a phone's width with
 * axe: no password field anywhere, a "Confirm it is you" card whose "Confirm with Test OP" goes to
 * the upstream, which asks for the login again (its session notwithstanding), and comes back to the
 * account page confirmed; then a first password is set, and the page asks for it everywhere. The
 * upstream is a real OpenID Provider (node-oidc-provider, test/upstream-provider.ts).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUpstream } from '../../src/upstreams/upstreams.js';
import { Agent, startServer, type TestServer } from '../helpers.js';
import { expectNoAxeViolations } from './axe.js';
import { hasChromium, launchChromium } from './chromium.js';
import { showUpstreamLogsOnFailure, signInAtUpstream, startUpstreamProvider, type UpstreamProvider } from '../upstream-provider.js';

const CLIENT = { client_id: 'identity-service', client_secret: 'upstream-client-secret-for-tests' };
const WIDTHS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

let t: TestServer;
let op: UpstreamProvider | undefined;
let browser: Browser;

/** A new account made through Test OP by `login` there, signed in, on its account page. */
async function upstreamAccount(login: string, name: string, viewport: { width: number; height: number }): Promise<Page> {
  const page = await (await browser.newContext({ viewport })).newPage();
  page.setDefaultTimeout(15_000);
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await page.goto(`${t.baseUrl}/signin`);
  await page.click('#upstream-test-op');
  await signInAtUpstream(page, login);
  expect(page.url()).toBe(`${t.baseUrl}/signup/upstream`);
  await page.fill('#name', name);
  await Promise.all([page.waitForURL(`${t.baseUrl}/account`), page.click('#upstream-signup-submit')]);
  return page;
}

describe.runIf(hasChromium)('an account without a password on its account page, in Chromium', () => {
  showUpstreamLogsOnFailure(() => op);

  beforeAll(async () => {
    const launched = launchChromium();
    t = await startServer({}, { limits: { upstreamIp: { points: 1000, seconds: 600 }, signInIp: { points: 1000, seconds: 600 } } });
    t.config.publicUrl = t.baseUrl;
    op = await startUpstreamProvider({
      clients: [{ ...CLIENT, redirect_uris: [`${t.baseUrl}/signin/upstream/test-op/callback`] }],
      accounts: Object.fromEntries(WIDTHS.map((w) => [`p${w.width}`, { sub: `op-p${w.width}`, email: `p${w.width}@op.example`, email_verified: true }])),
    });
    await addUpstream({ store: t.store, now: t.clock.now, secrets: t.config.sessionSecrets }, { name: 'Test OP', source: { issuer: op.issuer }, clientId: CLIENT.client_id, clientSecret: CLIENT.client_secret });
    browser = await launched;
  });
  afterAll(async () => {
    await browser?.close();
    await op?.close();
    await t?.close();
  });

  for (const viewport of WIDTHS) {
    it(`asks for no password, confirms with Test OP and comes back confirmed, then sets a first password (${viewport.width} px)`, async () => {
      const login = `p${viewport.width}`;
      const name = `nopw_${viewport.width}`;
      const page = await upstreamAccount(login, name, viewport);
      await page.waitForSelector('#upstream-identity-list li.upstream-identity');

      // Only the confirmations it has: no password field anywhere (but the new password's); the
      // card, and its upstream's button.
      const asked = page.locator('input[type=password]');
      expect(await asked.count()).toBe(1);
      expect(await asked.getAttribute('id')).toBe('first-password');
      expect(await page.textContent('#password h2')).toBe('Set a password');
      expect(await page.isVisible('#confirm-identity')).toBe(true);
      expect(await page.textContent('#confirm-upstream-test-op')).toBe('Confirm with Test OP');
      expect(await page.isVisible('#confirm-identity-status')).toBe(false);
      // No passkey yet: no passkey button.
      expect(await page.isVisible('#confirm-with-passkey')).toBe(false);
      await expectNoAxeViolations(page, `account without a password (${viewport.width} px)`);

      // Unconfirmed: setting a password says what to do, beside the form.
      await page.fill('#first-password', 'my first password');
      await page.click('#set-first-password');
      await expect.poll(() => page.textContent('#first-password-result-error')).toBe('Setting a password failed: Confirm it is you first, through an account linked to yours or with a passkey');
      await expectNoAxeViolations(page, `account without a password, unconfirmed (${viewport.width} px)`);

      // To the upstream, which asks for the login again, and back to the account page, confirmed.
      const request = page.waitForRequest((r) => r.url().startsWith(`${op!.issuer}/auth?`));
      await page.click('#confirm-upstream-test-op');
      const sent = new URL((await request).url());
      expect([sent.searchParams.get('prompt'), sent.searchParams.get('max_age')]).toEqual(['login', '0']);
      await signInAtUpstream(page, login);
      expect(page.url()).toBe(`${t.baseUrl}/account#confirm-identity`);
      expect(await page.isVisible('#confirm-identity-status')).toBe(true);
      expect(await page.textContent('#confirm-identity-status')).toBe('Confirmed. For 5 minutes, these changes ask for nothing more.');
      await expectNoAxeViolations(page, `account without a password, confirmed (${viewport.width} px)`);

      await page.fill('#first-password', 'my first password');
      await Promise.all([page.waitForEvent('load'), page.click('#set-first-password')]);
      // Made again with a password: every section asks for it.
      await page.waitForSelector('#current-password');
      expect(await page.textContent('#password h2')).toBe('Change password');
      expect(await page.isVisible('#confirm-identity')).toBe(false);
      expect(await page.isVisible('#delete-password')).toBe(true);
      expect(await page.isVisible('#add-passkey-password')).toBe(true);
      await expectNoAxeViolations(page, `account with its first password (${viewport.width} px)`);
      await new Agent(t).signIn({ name }, 'my first password');
      await page.context().close();
    });
  }
});
