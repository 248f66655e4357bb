/**
 * An authenticator app whose sealed seed no SESSION_SECRET key opens any more (the key changed), in
 * Chromium at a desktop's and a phone's width: the second step of sign-in says what is lost and
 * what still works, and its own form takes a recovery code through to the account.
 */
import path from 'node:path';
import { TOTP, URI } from 'otpauth';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInAgent, startServer, TEST_PASSWORD, type TestServer } from '../helpers.js';
import { expectNoAxeViolations } from './axe.js';
import { hasChromium, launchChromium, SCREENSHOTS_DIR } from './chromium.js';

let t: TestServer;
let browser: Browser;

const LOST =
  "Your authenticator app's codes cannot be checked any more: the key this service protected the app's secret with has changed, so that secret can no longer be read. A recovery code still works: type one below. Once signed in, switch the authenticator app off and set it up again on your account page.";

describe.skipIf(!hasChromium)('an authenticator app whose secret can no longer be read', () => {
  beforeAll(async () => {
    t = await startServer({}, { limits: { signInIp: { points: 1000, seconds: 600 } } });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    it(`at ${width}x${height}: a right code shows what is lost and a form for a recovery code, which signs in`, async () => {
      const { agent, user } = await signedInAgent(t);
      const setup = await agent.json('POST', '/api/account/totp', { password: TEST_PASSWORD });
      const totp = URI.parse(((await setup.json()) as { uri: string }).uri) as TOTP;
      const confirm = await agent.json('POST', '/api/account/totp/confirm', { code: totp.generate({ timestamp: t.clock.now() }) });
      const { recovery_codes: codes } = (await confirm.json()) as { recovery_codes: string[] };
      t.clock.advance(30_000);

      const page = await (await browser.newContext({ viewport: { width, height } })).newPage();
      page.setDefaultTimeout(10_000);
      await page.goto(`${t.baseUrl}/signin`);
      await page.fill('input[name=name]', user.name);
      await page.fill('input[name=password]', TEST_PASSWORD);
      await Promise.all([page.waitForURL(`${t.baseUrl}/signin/otp`), page.click('button[type=submit]')]);

      const config = t.app.deps.config;
      // Every key that sealed the seed is gone; the session cookie's keys are the app's own.
      t.app.deps.config = { ...config, sessionSecrets: ['another-session-secret-of-32-characters'] };
      try {
        await page.fill('#otp', totp.generate({ timestamp: t.clock.now() }));
        const [answer] = await Promise.all([
          page.waitForResponse((r) => new URL(r.url()).pathname === '/signin/otp' && r.request().method() === 'POST'),
          page.click('button[type=submit]'),
        ]);
        await page.waitForLoadState('load');
        expect(answer.status()).toBe(503);
        expect(await page.textContent('#error-message[role=alert]')).toBe(LOST);
        expect([await page.textContent('label:has(#otp)'), await page.inputValue('#otp'), await page.getAttribute('#otp', 'aria-describedby')]).toEqual([
          'Recovery code ',
          '',
          'error-message',
        ]);
        // The message and the form fit the screen: nothing scrolls sideways.
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(width);
        await page.screenshot({ path: path.join(SCREENSHOTS_DIR, `lost-authenticator-key-${width}.png`), fullPage: true });
        await expectNoAxeViolations(page, `second step, seed unreadable (${width}px)`);

        await page.fill('#otp', codes[0]!);
        await Promise.all([page.waitForURL(`${t.baseUrl}/account`), page.click('button[type=submit]')]);
        expect(await page.textContent('#profile-name')).toBe(user.name);
      } finally {
        t.app.deps.config = config;
        await page.context().close();
      }
    });
  }
});
