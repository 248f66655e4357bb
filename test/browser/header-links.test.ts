/**
 * Issue 51, item 6: on a phone the header's links were cut ("Account" showed as "A" or "Acc") in a
 * row that scrolled sideways with its scrollbar hidden. On every page with the site's header, at a
 * phone's width (390x844) and a desktop's (1280x800), signed out and signed in as a moderator with
 * a long name (the fullest header there is): each link and button of the header is visible and
 * whole (its text not clipped: scrollWidth <= clientWidth; its box on the screen, inside its
 * parent's box and inside the header's), the page does not scroll sideways, Tab reaches each in
 * order with it whole on the screen when focused, and axe (WCAG 2.2 A and AA) passes.
 * /docs is Redoc's page without this header; its own menu is checked in docs-page.test.ts.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerGame } from '../../src/games/games.js';
import type { UserRecord } from '../../src/domain/users.js';
import { makeUser, startServer, type TestServer } from '../helpers.js';
import { expectNoAxeViolations } from './axe.js';
import { hasChromium, launchChromium, signedInPage } from './chromium.js';

const VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
] as const;

let t: TestServer;
let browser: Browser;
let gameServer: http.Server;
let moderator: UserRecord;
let member: UserRecord;
let gameId: number;

/** What is wrong with each of the header's links and buttons, as the page shows them now: nothing, when all is well. */
function headerProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const inside = (inner: DOMRect, outer: DOMRect) => inner.left >= outer.left - 0.5 && inner.right <= outer.right + 0.5 && inner.top >= outer.top - 0.5 && inner.bottom <= outer.bottom + 0.5;
    const header = document.querySelector('body > header');
    if (!header) return ['no header'];
    const screen = new DOMRect(0, 0, document.documentElement.clientWidth, window.innerHeight);
    const controls = [...header.querySelectorAll<HTMLElement>('a, button')];
    if (controls.length < 5) problems.push(`only ${controls.length} links and buttons`);
    for (const control of controls) {
      const name = control.textContent?.trim() ?? '';
      const box = control.getBoundingClientRect();
      const style = getComputedStyle(control);
      if (box.width < 1 || box.height < 1 || style.visibility !== 'visible') problems.push(`${name}: not shown`);
      if (control.scrollWidth > control.clientWidth) problems.push(`${name}: its text is clipped (${control.clientWidth} of ${control.scrollWidth} px shown)`);
      if (!inside(box, screen)) problems.push(`${name}: not whole on the screen`);
      if (!inside(box, control.parentElement!.getBoundingClientRect())) problems.push(`${name}: outside its parent's box`);
      if (!inside(box, header.getBoundingClientRect())) problems.push(`${name}: outside the header`);
      // No ancestor hides part of it: each one that clips shows it whole.
      for (let up = control.parentElement; up && up !== document.body; up = up.parentElement) {
        if (getComputedStyle(up).overflowX !== 'visible' && !inside(box, up.getBoundingClientRect())) problems.push(`${name}: clipped by ${up.tagName.toLowerCase()}`);
      }
    }
    if (document.documentElement.scrollWidth > document.documentElement.clientWidth) problems.push(`the page scrolls sideways (${document.documentElement.scrollWidth} px)`);
    return problems;
  });
}

/**
 * The header's links and buttons as the keyboard reaches them, each whole on the screen when
 * focused: the first (the brand, the page's first focusable element) focused, then Tab to each next
 * one. (A page may focus a field of its own on load, the device page its code: so the walk starts at the brand.)
 */
async function tabThroughHeader(page: Page): Promise<{ reached: string[]; expected: string[] }> {
  const expected = await page.locator('body > header').evaluate((header) => [...header.querySelectorAll('a, button')].map((node) => node.textContent?.trim() ?? ''));
  const first = await page.evaluate(() => document.querySelector<HTMLElement>('a[href], button, input, select, textarea, [tabindex]')?.textContent?.trim());
  expect(first).toBe(expected[0]);
  await page.locator('body > header a').first().focus();
  const reached: string[] = [];
  for (let i = 0; i < expected.length; i++) {
    if (i > 0) await page.keyboard.press('Tab');
    reached.push(
      await page.evaluate(() => {
        const focused = document.activeElement as HTMLElement;
        const box = focused.getBoundingClientRect();
        const whole = box.left >= 0 && box.right <= document.documentElement.clientWidth && box.top >= 0 && box.bottom <= window.innerHeight;
        const name = focused.closest('body > header') ? (focused.textContent?.trim() ?? '') : `outside the header: ${focused.tagName}`;
        return whole ? name : `${name} (not whole on the screen)`;
      }),
    );
  }
  return { reached, expected };
}

/** Opens `address` and checks its header as above, and the page with axe. */
async function checkPage(page: Page, label: string, address: string, status = 200): Promise<void> {
  const res = await page.goto(`${t.baseUrl}${address}`);
  expect([label, res?.status()]).toEqual([label, status]);
  await page.waitForLoadState('load');
  expect([label, await headerProblems(page)]).toEqual([label, []]);
  const { reached, expected } = await tabThroughHeader(page);
  expect([label, reached]).toEqual([label, expected]);
  await expectNoAxeViolations(page, label);
}

describe.skipIf(!hasChromium)("the header's links on every page, at a phone's width and a desktop's", () => {
  beforeAll(async () => {
    t = await startServer({}, { limits: { signInIp: { points: 1000, seconds: 600 } } });
    moderator = await makeUser(t, 'a_rather_long_name_28_chars');
    await t.store.users.updateUser(moderator.id, { modLevel: 1 });
    member = await makeUser(t);
    const gamePage = fs.readFileSync(path.resolve(import.meta.dirname, '../../examples/game/index.html'));
    gameServer = http.createServer((_req, res) => res.setHeader('Content-Type', 'text/html').end(gamePage));
    await new Promise<void>((resolve) => gameServer.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(gameServer.address() as AddressInfo).port}/`;
    gameId = (await registerGame({ store: t.store, now: t.clock.now }, { authorId: moderator.id, title: 'Header test', url })).id;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    gameServer?.close();
    await t?.close();
  });

  for (const viewport of VIEWPORTS) {
    const size = `${viewport.width}x${viewport.height}`;

    it(`signed out at ${size}: every header link is whole, on the screen and reached by Tab`, async () => {
      const page = await (await browser.newContext({ viewport })).newPage();
      page.setDefaultTimeout(10_000);
      for (const [label, address, status] of [
        ['home', '/'],
        ['sign-in', '/signin'],
        ['sign-up', '/signup'],
        ['forgot-password', '/forgot-password'],
        ['games', '/games'],
        ['play', `/play/${gameId}`],
        ['profile', `/users/${moderator.id}`],
        ['device', '/device'],
        ['not-found', '/nope', 404],
        ['no-such-game', '/play/999', 404],
      ] as const) {
        await checkPage(page, `${label} signed out (${size})`, address, status);
      }
      await page.context().close();
    }, 120_000);

    it(`signed in as a moderator with a long name at ${size}: every header link is whole, on the screen and reached by Tab`, async () => {
      const page = await signedInPage(browser, t.baseUrl, moderator.name, viewport);
      for (const [label, address, status] of [
        ['home', '/'],
        ['account', '/account'],
        ['apps', '/apps'],
        ['games', '/games'],
        ['play', `/play/${gameId}`],
        ['profile', `/users/${member.id}`],
        ['moderation', '/moderation'],
        ['device', '/device'],
        ['not-found', '/nope', 404],
        ['no-such-game', '/play/999', 404],
      ] as const) {
        await checkPage(page, `${label} signed in (${size})`, address, status);
      }
      await page.context().close();
      // The 403 page a member who is not a moderator gets at /moderation.
      const memberPage = await signedInPage(browser, t.baseUrl, member.name, viewport);
      await checkPage(memberPage, `moderation refused (${size})`, '/moderation', 403);
      await memberPage.context().close();
    }, 120_000);
  }
});
