/**
 * A signed-in person whose account is suspended, in Chromium: the open page's next load lands on
 * the sign-in page, which says the account is suspended, until when and why (the session proves
 * whose browser it is); axe at desktop and phone widths.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { suspendUser } from '../../src/moderation/moderation.js';
import { makeUser, startServer, TEST_PASSWORD, type TestServer } from '../helpers.js';
import { expectNoAxeViolations } from './axe.js';
import { hasChromium, launchChromium } from './chromium.js';

let t: TestServer;
let browser: Browser;

describe.skipIf(!hasChromium)('a suspended session in Chromium', () => {
  beforeAll(async () => {
    t = await startServer({}, { limits: { signInIp: { points: 1000, seconds: 600 } } });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const viewport of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
    it(`the next page says the account is suspended, until when and why (${viewport.width}x${viewport.height})`, async () => {
      const user = await makeUser(t);
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      page.setDefaultTimeout(10_000);
      await page.goto(`${t.baseUrl}/signin`);
      await page.fill('input[name=name]', user.name);
      await page.fill('input[name=password]', TEST_PASSWORD);
      await Promise.all([page.waitForURL(`${t.baseUrl}/account`), page.click('main button[type=submit]')]);

      const until = t.clock.now() + 3 * 24 * 3600 * 1000;
      await suspendUser(t.app.deps, null, user.id, { reason: 'Spam in the bio', until });
      await Promise.all([page.waitForURL(`${t.baseUrl}/signin?return_to=%2Faccount`), page.reload()]);
      const notice = page.locator('#account-notice');
      expect(await notice.getAttribute('role')).toBe('status');
      expect(await notice.textContent()).toBe(
        `You were signed out of ${user.name}. This account is suspended until ${new Date(until).toISOString().slice(0, 16).replace('T', ' ')} UTC: Spam in the bio`,
      );
      expect(await page.locator('header .who').count()).toBe(0);
      await expectNoAxeViolations(page, `sign-in page of a suspended session (${viewport.width}x${viewport.height})`);
      await context.close();
    });
  }
});
