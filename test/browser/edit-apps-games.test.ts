/**
 * Editing what one registered, in Chromium: the author edits a game's title and address and
 * deletes it (its play page then 404s); an app's owner edits its name and redirect URIs, and copies
 * a new client secret; an app registered with refresh tokens (and the device grant) is listed so, and its owner turns them
 * off; a moderator removes someone else's game with a reason the record keeps.
 * axe finds nothing on the states shown, at a desktop's and a phone's width.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerGame } from '../../src/games/games.js';
import { registerOAuthApp } from '../../src/oauth/clients.js';
import type { UserRecord } from '../../src/domain/users.js';
import { makeUser, startServer, type TestServer } from '../helpers.js';
import { expectNoAxeViolations } from './axe.js';
import { hasChromium, launchChromium, signedInPage } from './chromium.js';

let t: TestServer;
let browser: Browser;

const signedIn = (user: UserRecord, width = 1280, height = 800) => signedInPage(browser, t.baseUrl, user.name, { width, height });

const game = (page: Page, id: number) => page.locator(`#games li[data-game-id="${id}"]`);

describe.skipIf(!hasChromium)('editing games and apps in Chromium', () => {
  beforeAll(async () => {
    t = await startServer();
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
    it(`at ${width}x${height} the author edits a game, is refused a bad address, and deletes it; its play page is then 404`, async () => {
      const author = await makeUser(t);
      const other = await makeUser(t);
      const { id } = await registerGame(t.app.deps, { authorId: author.id, title: 'Old title', url: 'https://old.example/game' });
      const theirs = await registerGame(t.app.deps, { authorId: other.id, title: 'Not mine', url: 'https://theirs.example/' });
      const page = await signedIn(author, width, height);
      await page.goto(`${t.baseUrl}/games`);
      // Only the author's own game has the controls; a person without a mod level sees none on others'.
      expect(await game(page, theirs.id).locator('details').count()).toBe(0);
      await game(page, id).locator('summary', { hasText: 'Edit or delete' }).click();
      await expectNoAxeViolations(page, `games page, editing (${width})`);

      await game(page, id).locator('input[name=url]').fill('ftp://nope.example/');
      await game(page, id).locator('button', { hasText: 'Save' }).click();
      await expect.poll(() => page.textContent(`#game-${id}-result-error`)).toMatch(/^Saving the game failed: /);
      expect(await game(page, id).locator('input[name=url]').getAttribute('aria-invalid')).toBe('true');

      await game(page, id).locator('input[name=title]').fill('New title');
      await game(page, id).locator('input[name=url]').fill('https://new.example/game');
      await game(page, id).locator('button', { hasText: 'Save' }).click();
      await expect.poll(() => page.textContent(`#game-${id}-result-status`)).toBe('Saved: New title, hosted at https://new.example/game');
      expect(await game(page, id).locator('a').first().textContent()).toBe('New title');
      expect(await t.store.games.getGame(id)).toMatchObject({ title: 'New title', url: 'https://new.example/game' });

      // Delete asks first: dismissed, nothing happens; accepted, the game goes.
      page.once('dialog', (d) => void d.dismiss());
      await game(page, id).locator('button', { hasText: 'Delete the game' }).click();
      await expect.poll(async () => (await t.store.games.getGame(id)) !== undefined).toBe(true);
      let asked = '';
      page.once('dialog', (d) => {
        asked = d.message();
        void d.accept();
      });
      await game(page, id).locator('button', { hasText: 'Delete the game' }).click();
      await expect.poll(() => page.textContent('#games-list-result-status')).toBe('Deleted New title');
      expect(asked).toBe('Delete New title? Its play page goes, and it can no longer sign players in.');
      expect(await game(page, id).count()).toBe(0);
      const play = await page.goto(`${t.baseUrl}/play/${id}`);
      expect(play?.status()).toBe(404);
      await page.context().close();
    });
  }

  it('the owner edits an app: name and redirect URIs saved, a bad one refused beside its field; a new secret can be copied', async () => {
    const owner = await makeUser(t);
    const { app } = await registerOAuthApp({ store: t.store, now: t.clock.now }, { ownerId: owner.id, name: 'Before', redirectUris: ['https://before.example/cb'] });
    const page = await signedIn(owner);
    await page.goto(`${t.baseUrl}/apps`);
    const card = page.locator(`section.app[data-client-id="${app.clientId}"]`);
    await card.locator('summary', { hasText: 'Edit name, addresses and grants' }).click();
    await card.locator('textarea[name=redirect_uris]').fill('not a url');
    await card.locator('button', { hasText: 'Save' }).click();
    await expect.poll(() => page.textContent(`#app-${app.clientId}-result-error`)).toMatch(/^Saving the app failed: /);
    expect(await card.locator('textarea[name=redirect_uris]').getAttribute('aria-invalid')).toBe('true');

    await card.locator('input[name=name]').fill('After');
    await card.locator('textarea[name=redirect_uris]').fill('https://after.example/cb\nhttps://after.example/cb2');
    await card.locator('textarea[name=post_logout_redirect_uris]').fill('https://after.example/bye');
    await card.locator('button', { hasText: 'Save' }).click();
    await expect.poll(() => page.textContent(`#app-${app.clientId}-result-status`)).toBe('Saved After');
    const saved = page.locator(`section.app[data-client-id="${app.clientId}"]`);
    expect(await saved.locator('h3').textContent()).toBe('After');
    expect(await saved.locator('p.redirect-uris').textContent()).toBe('Redirect URIs: https://after.example/cb, https://after.example/cb2');
    expect(await saved.locator('select.redirect-uri option').allTextContents()).toEqual(['https://after.example/cb', 'https://after.example/cb2']);
    expect(await t.store.apps.getApp(app.clientId)).toMatchObject({ name: 'After', redirectUris: ['https://after.example/cb', 'https://after.example/cb2'], postLogoutRedirectUris: ['https://after.example/bye'] });
    await expectNoAxeViolations(page, 'apps page, after an edit');

    // A new secret, and its copy button.
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.baseUrl });
    page.once('dialog', (d) => void d.accept());
    await saved.locator('button', { hasText: 'Rotate secret' }).click();
    await expect.poll(() => page.isVisible('#new-secret')).toBe(true);
    const secret = (await page.textContent('#new-client-secret'))!;
    expect(secret).toMatch(/^[\w-]{20,}$/);
    await page.click('#copy-client-secret');
    await expect.poll(() => page.textContent('#apps-result-status')).toBe('Copied the client secret to the clipboard');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await page.context().close();

    // The same edit form at a phone's width.
    const phone = await signedIn(owner, 390, 844);
    await phone.goto(`${t.baseUrl}/apps`);
    await phone.locator(`section.app[data-client-id="${app.clientId}"] summary`, { hasText: 'Edit name, addresses and grants' }).click();
    await expectNoAxeViolations(phone, 'apps page, editing (390)');
    await phone.context().close();
  });

  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    it(`at ${width}x${height} an app registered with refresh tokens and the device grant is listed with them, and its owner turns refresh tokens off`, async () => {
      const owner = await makeUser(t);
      const page = await signedIn(owner, width, height);
      await page.goto(`${t.baseUrl}/apps`);
      await page.fill('#app-name', `Refreshing ${width}`);
      await page.fill('#redirect-uris', 'https://refresh.example/cb');
      expect(await page.isChecked('#app-refresh-tokens')).toBe(false);
      await page.getByLabel('Refresh tokens: let this app keep people signed in (offline_access)').check();
      expect(await page.isChecked('#app-device-grant')).toBe(false);
      await page.getByLabel('Devices without a browser: let this app sign people in from a console, a TV or a terminal').check();
      await expectNoAxeViolations(page, `apps page, registering with refresh tokens (${width})`);
      await page.click('#register');
      await expect.poll(() => page.textContent('#apps-result-status')).toBe(`Registered Refreshing ${width}`);
      const clientId = (await page.textContent('#new-client-id'))!;
      expect(await t.store.apps.getApp(clientId)).toMatchObject({ grantTypes: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'] });
      // The form is reset for the next app: the boxes are clear again.
      expect(await page.isChecked('#app-refresh-tokens')).toBe(false);
      expect(await page.isChecked('#app-device-grant')).toBe(false);

      const card = () => page.locator(`section.app[data-client-id="${clientId}"]`);
      await expect.poll(() => card().locator('p.refresh-tokens').textContent()).toBe('Refresh tokens: on (people who consent to offline_access stay signed in)');
      expect(await card().locator('p.device-grant').textContent()).toBe('Devices without a browser: on (people approve on /device)');
      // The sign-in link builder offers offline_access to this app.
      expect(await card().locator('input.scope-offline_access').count()).toBe(1);

      await card().locator('summary', { hasText: 'Edit name, addresses and grants' }).click();
      const box = card().getByLabel('Refresh tokens: let this app keep people signed in (offline_access)');
      expect(await box.isChecked()).toBe(true);
      await expectNoAxeViolations(page, `apps page, editing an app with refresh tokens (${width})`);
      await box.uncheck();
      await card().locator('button', { hasText: 'Save' }).click();
      await expect.poll(() => page.textContent(`#app-${clientId}-result-status`)).toBe(`Saved Refreshing ${width}`);
      expect(await card().locator('p.refresh-tokens').textContent()).toBe('Refresh tokens: off');
      expect(await card().locator('p.device-grant').textContent()).toBe('Devices without a browser: on (people approve on /device)');
      expect(await card().locator('input.scope-offline_access').count()).toBe(0);
      expect(await t.store.apps.getApp(clientId)).toMatchObject({ grantTypes: ['authorization_code', 'urn:ietf:params:oauth:grant-type:device_code'] });
      await card().locator('summary', { hasText: 'Edit name, addresses and grants' }).click();
      expect(await card().getByLabel('Refresh tokens: let this app keep people signed in (offline_access)').isChecked()).toBe(false);
      expect(await card().getByLabel('Devices without a browser: let this app sign people in from a console, a TV or a terminal').isChecked()).toBe(true);
      await expectNoAxeViolations(page, `apps page, an app without refresh tokens (${width})`);

      // After a reload, the list still says so.
      await page.reload();
      await expect.poll(() => card().locator('p.refresh-tokens').textContent()).toBe('Refresh tokens: off');
      await page.context().close();
    });
  }

  it('a moderator removes someone else\'s game with a reason; the record names it', async () => {
    const moderator = await makeUser(t);
    await t.store.users.updateUser(moderator.id, { modLevel: 1 });
    const author = await makeUser(t);
    const { id } = await registerGame(t.app.deps, { authorId: author.id, title: 'Spam game', url: 'https://spam.example/' });
    const phone = await signedIn(moderator, 390, 844);
    await phone.goto(`${t.baseUrl}/games`);
    await game(phone, id).locator('summary', { hasText: 'Remove (moderator)' }).click();
    await expectNoAxeViolations(phone, 'games page, a moderator removing (390)');
    await phone.context().close();
    const page = await signedIn(moderator);
    await page.goto(`${t.baseUrl}/games`);
    await game(page, id).locator('summary', { hasText: 'Remove (moderator)' }).click();
    await expectNoAxeViolations(page, 'games page, a moderator removing (1280)');
    await game(page, id).locator('input[name=reason]').fill('Advertising, not a game');
    page.once('dialog', (d) => void d.accept());
    await game(page, id).locator('button', { hasText: 'Remove the game' }).click();
    await expect.poll(() => page.textContent('#games-list-result-status')).toBe('Removed Spam game; the moderation record says why');
    expect(await t.store.games.getGame(id)).toBeUndefined();
    await page.goto(`${t.baseUrl}/moderation?user=${author.id}`);
    await expect.poll(() => page.textContent('#moderation-history')).toContain('Removed the game "Spam game" (id');
    expect(await page.textContent('#moderation-history')).toContain(': Advertising, not a game (by ');
    await page.context().close();
  });
});
