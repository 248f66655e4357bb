/**
 * Issue 51, item 13: a 404 is an ordinary miss, not an alarm. An address no page has (/nope) and a
 * game that does not exist (/play/999) answer a calm page: the heading "Page not found", the reason
 * in the page's ordinary text (not the red, bold error style, no alert role), and the ways on: the
 * home page and the Games page. At a phone's width and a desktop's, signed out and signed in, with axe.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeUser, startServer, type TestServer } from '../helpers.js';
import { expectNoAxeViolations } from './axe.js';
import { hasChromium, launchChromium, signedInPage } from './chromium.js';

let t: TestServer;
let browser: Browser;

/** What a 404 page shows, as the person sees it. */
async function notFoundPage(page: Page, address: string) {
  const res = await page.goto(`${t.baseUrl}${address}`);
  return {
    status: res?.status(),
    heading: await page.textContent('main h1'),
    ...(await page.evaluate(() => {
      const message = document.getElementById('error-message')!;
      const style = getComputedStyle(message);
      const text = getComputedStyle(document.querySelector('main')!);
      return {
        message: message.textContent,
        // The reason in the page's own text colour and weight, not the error style.
        calm: style.color === text.color && style.fontWeight === '400' && !message.classList.contains('error'),
        alerts: document.querySelectorAll('main [role=alert], main .error').length,
        links: [...document.querySelectorAll('main a')].map((a) => [a.getAttribute('href'), a.textContent]),
      };
    })),
  };
}

const WAYS_ON = [
  ['/', 'Back to the home page'],
  ['/games', 'Browse the games'],
];

describe.skipIf(!hasChromium)('a 404 page, at a phone and a desktop width', () => {
  beforeAll(async () => {
    t = await startServer();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const viewport of [
    { width: 390, height: 844 },
    { width: 1280, height: 800 },
  ]) {
    const size = `${viewport.width}x${viewport.height}`;

    it(`at ${size}, signed out and in: "Page not found", said calmly, with links home and to the games`, async () => {
      const user = await makeUser(t);
      const signedOut = await (await browser.newContext({ viewport })).newPage();
      const signedIn = await signedInPage(browser, t.baseUrl, user.name, viewport);
      for (const page of [signedOut, signedIn]) {
        expect(await notFoundPage(page, '/nope/deeper')).toEqual({
          status: 404,
          heading: 'Page not found',
          message: 'There is no page at /nope/deeper. The link may be mistyped, or the page may have moved.',
          calm: true,
          alerts: 0,
          links: WAYS_ON,
        });
        await expectNoAxeViolations(page, `/nope/deeper (${size})`);
        // A game that does not exist: its reason, and the Games page to find one that does.
        expect(await notFoundPage(page, '/play/999')).toEqual({ status: 404, heading: 'Page not found', message: 'Game not found', calm: true, alerts: 0, links: WAYS_ON });
        expect(await page.title()).toBe('Page not found');
        await expectNoAxeViolations(page, `/play/999 (${size})`);
        await page.context().close();
      }
    });
  }
});
