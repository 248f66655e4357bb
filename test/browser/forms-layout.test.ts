/**
 * Issue 51, item 10, measured in Chromium at a phone's width (390x844) and a desktop's (1280x800),
 * with axe on each page:
 * - the "Sign in with ..." buttons of the sign-in and sign-up pages: a list without bullets, the
 *   buttons apart (they touched);
 * - the apps page's checkboxes beside their words (they sat alone above them once the words wrapped);
 * - the account page: "Bio" said once (a heading "Bio" stood above the field labelled "Bio"; the
 *   heading now names the field), the picture hint names the formats the service takes
 *   (src/pictures/images.ts), and on a desktop the page is compact (its sections in two columns).
 */
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerOAuthApp } from '../../src/oauth/clients.js';
import { addUpstream } from '../../src/upstreams/upstreams.js';
import type { UserRecord } from '../../src/domain/users.js';
import { makeUser, startServer, type TestServer } from '../helpers.js';
import { expectNoAxeViolations } from './axe.js';
import { hasChromium, launchChromium, SCREENSHOTS_DIR, signedInPage } from './chromium.js';

const VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
] as const;

/**
 * The account page's height at 1280x800 stays under four screens of 800 px. In one column it
 * measured 4,820 px for this test's account (six screens; issue 51 saw 3,900 with fewer sections
 * and sessions); in two columns it measures 2,771. The bound leaves room for a section or two more
 * (the account's confirmations grow) without letting the page fall back to one long column.
 */
const ACCOUNT_PAGE_MAX_HEIGHT = 3200;

let t: TestServer;
let browser: Browser;
let user: UserRecord;

/** The vertical gaps between the buttons of the upstreams' list, and each item's list style. */
function upstreamList(page: Page) {
  return page.evaluate(() => {
    const items = [...document.querySelectorAll('#upstream-sign-in li')];
    const buttons = items.map((li) => li.querySelector('button')!.getBoundingClientRect());
    return {
      names: items.map((li) => li.textContent),
      listStyles: items.map((li) => getComputedStyle(li).listStyleType),
      gaps: buttons.slice(1).map((box, i) => Math.round(box.top - buttons[i]!.bottom)),
    };
  });
}

/**
 * For each checkbox in `scope`: whether it and the first line of its label's words share a line
 * (their boxes overlap vertically), with the label's words to tell them apart.
 */
function checkboxesBesideWords(page: Page, scope: string) {
  return page.locator(scope).evaluate((root) =>
    [...root.querySelectorAll<HTMLInputElement>('label > input[type=checkbox]')].map((box) => {
      const label = box.parentElement!;
      const words = document.createRange();
      words.selectNodeContents(label);
      words.setStartAfter(box);
      const firstLine = [...words.getClientRects()].find((r) => r.width > 0 && r.height > 0)!;
      const at = box.getBoundingClientRect();
      return [label.textContent.trim().slice(0, 20), at.top < firstLine.bottom && at.bottom > firstLine.top];
    }),
  );
}

describe.skipIf(!hasChromium)('the sign-in buttons, the apps checkboxes and the account page, measured', () => {
  beforeAll(async () => {
    t = await startServer({}, { limits: { signInIp: { points: 1000, seconds: 600 } } });
    const registry = { store: t.store, now: t.clock.now, secrets: t.config.sessionSecrets };
    await addUpstream(registry, { name: 'GitHub', source: { preset: 'github' }, clientId: 'github-client', clientSecret: 'github-secret' });
    await addUpstream(registry, { name: 'Google', source: { preset: 'google' }, clientId: 'google-client', clientSecret: 'google-secret' });
    user = await makeUser(t);
    await registerOAuthApp({ store: t.store, now: t.clock.now }, { ownerId: user.id, name: 'Layout App', redirectUris: ['https://app.example/cb'] });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const viewport of VIEWPORTS) {
    const size = `${viewport.width}x${viewport.height}`;

    it(`at ${size} the "Sign in with ..." buttons have no bullets and stand apart`, async () => {
      const page = await (await browser.newContext({ viewport })).newPage();
      for (const address of ['/signin', '/signup']) {
        await page.goto(`${t.baseUrl}${address}`);
        const list = await upstreamList(page);
        expect([address, list.names, list.listStyles]).toEqual([address, ['Sign in with GitHub', 'Sign in with Google'], ['none', 'none']]);
        // At least the spacing scale's --space-2 (8px) between two buttons.
        expect([address, list.gaps.every((gap) => gap >= 8)]).toEqual([address, true]);
        await expectNoAxeViolations(page, `${address} (${size})`);
      }
      await page.context().close();
    });

    it(`at ${size} each checkbox of the apps page sits beside its words`, async () => {
      const page = await signedInPage(browser, t.baseUrl, user.name, viewport);
      await page.goto(`${t.baseUrl}/apps`);
      await page.waitForSelector('section.app');
      expect(await checkboxesBesideWords(page, '#register-form')).toEqual([
        ['Public client (no se', true],
        ['Refresh tokens: let ', true],
        ['Devices without a br', true],
      ]);
      // The edit form of a registered app, opened, says its grants the same way.
      await page.click('details.app-edit summary');
      expect(await checkboxesBesideWords(page, 'details.app-edit')).toEqual([
        ['Refresh tokens: let ', true],
        ['Devices without a br', true],
      ]);
      await expectNoAxeViolations(page, `/apps with an app's edit form open (${size})`);
      await page.context().close();
    });

    it(`at ${size} the account page says "Bio" once and which pictures it takes${viewport.width > 1000 ? `, in under ${ACCOUNT_PAGE_MAX_HEIGHT} px` : ''}`, async () => {
      const page = await signedInPage(browser, t.baseUrl, user.name, viewport);
      await page.waitForSelector('#sessions li.session');
      // Every element whose own words are "Bio": the heading alone, which names the field too.
      const bios = await page.evaluate(() =>
        [...document.querySelectorAll('main *')].filter((node) => [...node.childNodes].some((child) => child.nodeType === Node.TEXT_NODE && child.textContent!.trim() === 'Bio')).map((node) => node.id),
      );
      expect(bios).toEqual(['bio-heading']);
      expect(await page.getAttribute('#bio', 'aria-labelledby')).toBe('bio-heading');
      expect(await page.getAttribute('#bio', 'aria-describedby')).toBe('bio-removed');
      expect(await page.locator('label:has(#picture-file) small').textContent()).toBe('JPEG, PNG, WebP, GIF or AVIF, at most 8 MB (an AVIF at most 1 MB)');
      expect(await page.getAttribute('#picture-file', 'accept')).toBe('image/jpeg,image/png,image/webp,image/gif,image/avif');
      const height = await page.evaluate(() => document.documentElement.scrollHeight);
      console.log(`the account page at ${size}: ${height} px tall`);
      await page.screenshot({ path: path.join(SCREENSHOTS_DIR, `account-${size}.png`), fullPage: true });
      if (viewport.width > 1000) expect(height).toBeLessThan(ACCOUNT_PAGE_MAX_HEIGHT);
      await expectNoAxeViolations(page, `/account (${size})`);
      await page.context().close();
    });
  }
});
