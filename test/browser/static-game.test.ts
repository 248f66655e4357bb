/**
 * The static example game (examples/static-game/, served as files by scripts/serve-static-game.ts
 * on its own origin) end to end: framed by /play/<id>, the player signs in on the play page, the
 * game signs in through the SDK, redeems the code in the browser as a public app, and shows the
 * player's name and picture.
 */
import type { Browser } from 'playwright-core';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/free-port.js';
import { serveStaticGame } from '../../scripts/serve-static-game.js';
import { registerGame } from '../../src/games/games.js';
import { registerOAuthApp } from '../../src/oauth/clients.js';
import { makeUser, startServer, TEST_PASSWORD, type TestServer } from '../helpers.js';
import { hasChromium, launchChromium, SCREENSHOTS_DIR } from './chromium.js';

let t: TestServer;
let browser: Browser;
let game: Awaited<ReturnType<typeof serveStaticGame>>;

describe.skipIf(!hasChromium)('the static example game in Chromium', () => {
  beforeAll(async () => {
    t = await startServer();
    // The picture claim is an address on PUBLIC_URL: make it the port the test server got.
    t.config.publicUrl = t.baseUrl;
    game = await serveStaticGame(0);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await game?.close();
    await t?.close();
  });

  it('a signed-out player signs in on the play page, authorizes the game, and sees their name and picture', async () => {
    const author = await makeUser(t);
    const player = await makeUser(t);
    const { app } = await registerOAuthApp({ store: t.store, now: t.clock.now }, { ownerId: author.id, name: 'Static Game App', redirectUris: [game.url], public: true });
    const url = `${game.url}?service=${encodeURIComponent(t.baseUrl)}&client_id=${app.clientId}`;
    const { id } = await registerGame({ store: t.store, now: t.clock.now }, { authorId: author.id, title: 'Static Example Game', url });

    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${t.baseUrl}/play/${id}`);
    const frame = page.frameLocator('#game');
    const status = frame.locator('#status');
    await expect.poll(() => status.textContent()).toBe('You are not signed in to the service: sign in on the page around this game.');
    expect(await frame.locator('#sign-in').isDisabled()).toBe(true);

    await Promise.all([page.waitForURL(`${t.baseUrl}/signin?**`), page.click('#play-state a')]);
    await page.fill('input[name=name]', player.name);
    await page.fill('input[name=password]', TEST_PASSWORD);
    await Promise.all([page.waitForURL(`${t.baseUrl}/play/${id}`), page.click('button[type=submit]')]);
    await expect.poll(() => status.textContent()).toBe('You are signed in to the service. Sign the game in to play as yourself.');
    expect(await frame.locator('#client-id').inputValue()).toBe(app.clientId);

    await frame.getByRole('button', { name: 'Sign in with the identity service' }).click();
    await page.waitForSelector('#consent[open]');
    expect(await page.textContent('#consent-app')).toBe('Static Game App');
    await page.click('#consent-authorize');

    await expect.poll(() => status.textContent()).toBe(`Signed in as ${player.name}.`);
    expect(await frame.locator('#player-name').textContent()).toBe(player.name);
    const picture = frame.getByRole('img', { name: `Profile picture of ${player.name}` });
    expect(await picture.getAttribute('src')).toBe(`${t.baseUrl}/pfp/large/${player.id}.webp`);
    await expect.poll(() => picture.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(256);
    await page.screenshot({ path: path.join(SCREENSHOTS_DIR, 'static-game-signed-in.png'), fullPage: true });
    await context.close();
  });

  it('opened on its own (outside /play), served with a service address: it names that address, running or not', async () => {
    const nobody = `http://127.0.0.1:${await freePort()}`;
    for (const [service, said] of [
      [t.baseUrl, `Open this game from the service’s games page (${t.baseUrl}/games): it signs in through the page around it.`],
      [
        nobody,
        `Could not load the game SDK from ${nobody}/sdk/game.js: is the identity service running at ${nobody}? ` +
          `If it runs elsewhere, add ?service=<its address> to this page's address (or start npm run example:static with SERVICE_URL=<its address>).`,
      ],
    ] as const) {
      const served = await serveStaticGame(0, service);
      const page = await browser.newPage();
      try {
        page.setDefaultTimeout(10_000);
        await page.goto(served.url);
        await expect.poll(() => page.textContent('#status')).toBe(said);
        // The page's own ?service= wins over the address it was served with.
        await page.goto(`${served.url}?service=${encodeURIComponent(nobody)}`);
        await expect.poll(() => page.textContent('#status')).toContain(`Could not load the game SDK from ${nobody}/sdk/game.js`);
      } finally {
        await page.close();
        await served.close();
      }
    }
  });
});
