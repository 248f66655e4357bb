/**
 * The layout at a phone's width (390x844) and a desktop's (1280x800): the header is one row on a
 * desktop and two on a phone (the links, then who is signed in), every link whole in it (each page
 * is measured in header-links.test.ts), and the play page's game frame takes the screen's height
 * below the title instead of a fixed box that clips the game.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerGame } from '../../src/games/games.js';
import type { UserRecord } from '../../src/domain/users.js';
import { makeUser, startServer, type TestServer } from '../helpers.js';
import { hasChromium, launchChromium, signedInPage } from './chromium.js';

let t: TestServer;
let browser: Browser;
let moderator: UserRecord;
let gameId: number;

const signedIn = (width: number, height: number) => signedInPage(browser, t.baseUrl, moderator.name, { width, height });

const box = (page: Page, selector: string) => page.locator(selector).evaluate((node) => node.getBoundingClientRect().toJSON() as DOMRect);

describe.skipIf(!hasChromium)('the layout on a phone and a desktop', () => {
  beforeAll(async () => {
    t = await startServer();
    // A moderator with a long name: the fullest header there is.
    moderator = await makeUser(t, 'a_rather_long_name_28_chars');
    await t.store.users.updateUser(moderator.id, { modLevel: 1 });
    gameId = (await registerGame(t.app.deps, { authorId: moderator.id, title: 'Frame test', url: 'http://localhost:9/game.html' })).id;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const [width, height] of [
    [390, 844],
    [1280, 800],
  ] as const) {
    it(`at ${width}x${height} the header is ${width < 640 ? 'two rows' : 'one row'} with every link in it whole`, async () => {
      const page = await signedIn(width, height);
      const header = await box(page, 'header');
      // A row is one 24px-target line and its padding: one on a desktop, two on a phone (the links
      // wrap instead of scrolling sideways out of sight, issue 51), never three.
      expect(header.height).toBeLessThanOrEqual(width < 640 ? 80 : 56);
      // Nothing sticks out of the screen sideways: the page does not scroll horizontally.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(width);
      // Each link is whole inside the header's list of links and on the screen, without scrolling.
      const nav = await box(page, 'header nav');
      for (const name of ['Identity', 'Games', 'Apps', 'Account', 'Moderation']) {
        const at = await page.locator('header nav a', { hasText: name }).evaluate((node) => ({ ...(node.getBoundingClientRect().toJSON() as DOMRect), whole: node.scrollWidth <= node.clientWidth }));
        expect([name, at.whole && at.left >= nav.left - 0.5 && at.right <= nav.right + 0.5 && at.left >= 0 && at.right <= width]).toEqual([name, true]);
      }
      // Who is signed in is said in full to screen readers; on a phone the words "Signed in as" are
      // visually hidden and a long name cut short, on a desktop both are shown whole.
      expect(await page.locator('header .who').textContent()).toBe(`Signed in as ${moderator.name}`);
      const label = await box(page, 'header .who-label');
      const name = await page.locator('header .who strong').evaluate((node) => ({ shown: node.clientWidth, whole: node.scrollWidth }));
      if (width < 640) {
        expect([label.width <= 1, name.shown < name.whole]).toEqual([true, true]);
      } else {
        expect([label.width > 50, name.shown]).toEqual([true, name.whole]);
      }
      expect(await page.isVisible('header button:has-text("Sign out")')).toBe(true);
      await page.context().close();
    });

    it(`at ${width}x${height} the play page's frame fits the screen below the title`, async () => {
      const page = await signedIn(width, height);
      await page.goto(`${t.baseUrl}/play/${gameId}`);
      // On a desktop the whole frame is on the first screen; on a phone, once scrolled to, the
      // whole frame is on the screen; either way it takes more than half the screen's height.
      if (width < 640) await page.locator('iframe#game').evaluate((node) => node.scrollIntoView({ block: 'end' }));
      const frame = await box(page, 'iframe#game');
      expect([frame.top >= 0, frame.top + frame.height <= height + 0.5, frame]).toEqual([true, true, frame]);
      expect(frame.height).toBeGreaterThan(height / 2);
      await page.context().close();
    });
  }
});
