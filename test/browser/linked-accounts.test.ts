/**
 * The account page's "Linked accounts" in Chromium (docs/account.md#linked-accounts): the linked
 * identities listed by the script, the "Link <name>" form shown only for an upstream not linked,
 * unlinking asked as linking is, up front (issue 51, item 11): the password beside "Unlink", no
 * dialog and no second question (a wrong one said beside it), and the account's last way in
 * refused in the section's result line; axe at a desktop's and a phone's width. The upstreams are registered, never called; links are made in the store.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/accounts/passwords.js';
import { NO_PASSWORD, type UserRecord } from '../../src/domain/users.js';
import { addUpstream } from '../../src/upstreams/upstreams.js';
import { makeUser, startServer, TEST_PASSWORD, type TestServer } from '../helpers.js';
import { expectNoAxeViolations } from './axe.js';
import { hasChromium, launchChromium } from './chromium.js';

let t: TestServer;
let browser: Browser;

const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

/** Every dialog a page opened (none should: the password is asked up front). */
const dialogs: string[] = [];

async function signedIn(who: UserRecord, password: string, viewport: { width: number; height: number }): Promise<Page> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await page.goto(`${t.baseUrl}/signin`);
  await page.fill('input[name=name]', who.name);
  await page.fill('input[name=password]', password);
  await Promise.all([page.waitForURL(`${t.baseUrl}/account`), page.click('button[type=submit]')]);
  return page;
}

/** The page's one date format, computed in the page as a reader's browser would. */
function formatted(page: Page, ms: number): Promise<string> {
  return page.evaluate((at) => new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(at)), ms);
}

let subjects = 0;
const link = (userId: number, slug: string, email: string | null = null) =>
  t.store.upstreamIdentities.linkUpstreamIdentity({ userId, upstreamSlug: slug, subject: `subject-${++subjects}`, email, createdAt: t.clock.now() });

describe.skipIf(!hasChromium)('linked accounts on the account page', () => {
  beforeAll(async () => {
    t = await startServer();
    const registry = { store: t.store, now: t.clock.now, secrets: t.config.sessionSecrets };
    await addUpstream(registry, { name: 'Acme', source: { issuer: 'https://op.example' }, clientId: 'acme', clientSecret: 'acme-secret' });
    await addUpstream(registry, { name: 'Globex', source: { issuer: 'https://globex.example' }, clientId: 'globex', clientSecret: 'globex-secret' });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const viewport of VIEWPORTS) {
    it(`lists a link, offers to link the other upstream, and unlinks with the password asked up front, as Link asks it (${viewport.width}x${viewport.height})`, async () => {
      const size = `${viewport.width}x${viewport.height}`;
      const user = await makeUser(t);
      const acme = await link(user.id, 'acme', 'ada@acme.example');
      await t.store.upstreamIdentities.touchUpstreamIdentity(acme.id, t.clock.now() + 60_000);
      const page = await signedIn(user, TEST_PASSWORD, viewport);

      await page.waitForSelector('#upstream-identity-list li.upstream-identity');
      expect(await page.textContent('#upstream-identity-list .upstream-name')).toBe('Acme');
      expect(await page.textContent('#upstream-identity-list .upstream-email')).toBe(' ada@acme.example');
      expect(await page.textContent('#upstream-identity-list .upstream-times')).toBe(
        `Linked ${await formatted(page, acme.createdAt)}, last used ${await formatted(page, t.clock.now() + 60_000)}`,
      );
      expect(await page.isVisible('#link-upstream-acme')).toBe(false);
      expect(await page.isVisible('#link-upstream-globex')).toBe(true);
      expect(await page.textContent('#link-upstream-globex')).toBe('Link Globex');
      expect(await page.getAttribute('#account-nav a[href="#upstream-identities"]', 'href')).toBe('#upstream-identities');
      await expectNoAxeViolations(page, `linked accounts (${size})`);

      // Both ask the same way, before their button: Link <name> and Unlink beside a password field.
      expect(await page.isVisible('form.link-upstream[data-upstream="globex"] input[type=password]')).toBe(true);
      expect(await page.textContent('form.link-upstream[data-upstream="globex"] label')).toBe('Your password, to link Globex ');
      expect(await page.isVisible('#upstream-identity-list .upstream-unlink-password')).toBe(true);
      expect(await page.textContent('#upstream-identity-list .upstream-unlink label')).toBe('Your password, to unlink Acme ');
      // A wrong one is said beside it; no dialog was asked.
      await page.fill('#upstream-identity-list .upstream-unlink-password', 'not my password');
      await page.click('#upstream-identity-list .unlink-upstream');
      await expect.poll(() => page.textContent('#upstream-identity-list .upstream-unlink-error')).toBe('Unlinking Acme failed: The password is wrong');
      expect(await page.getAttribute('#upstream-identity-list .upstream-unlink-password', 'aria-invalid')).toBe('true');
      await expectNoAxeViolations(page, `linked accounts, wrong password (${size})`);

      await page.fill('#upstream-identity-list .upstream-unlink-password', TEST_PASSWORD);
      await page.click('#upstream-identity-list .unlink-upstream');
      await expect.poll(() => page.textContent('#upstream-identities-result-status')).toBe('Unlinked Acme');
      expect(dialogs).toEqual([]);
      expect(await page.textContent('#upstream-identity-list')).toBe('No linked accounts.');
      expect(await page.isVisible('#link-upstream-acme')).toBe(true);
      expect(await t.store.upstreamIdentities.listUpstreamIdentities(user.id)).toEqual([]);
      await page.context().close();
    });
  }

  it('says in the section why the last way in of an account without a password stays', async () => {
    const name = `nopass_${process.pid}`;
    const user = await t.store.users.createUser(
      { name, email: `${name}@example.com`, passwordHash: NO_PASSWORD, emailVerifiedAt: t.clock.now(), upstreamIdentity: { upstreamSlug: 'globex', subject: 'only-one', email: null } },
      t.clock.now(),
    );
    // Its sign-in would go through Globex: a password set for the moment stands in for it.
    await t.store.knex('users').where({ id: user.id }).update({ password_hash: await hashPassword('for this sign-in only') });
    const page = await signedIn(user, 'for this sign-in only', VIEWPORTS[0]!);
    await t.store.knex('users').where({ id: user.id }).update({ password_hash: NO_PASSWORD });
    await page.reload();
    await page.waitForSelector('#upstream-identity-list li.upstream-identity');
    // It has no password: no field beside Unlink (it confirms in "Confirm it is you").
    expect(await page.locator('#upstream-identity-list input').count()).toBe(0);
    await page.click('#upstream-identity-list .unlink-upstream');
    await expect
      .poll(() => page.textContent('#upstream-identities-result-error'))
      .toBe('Unlinking Globex failed: This is the last way to sign in to your account: set a password or add a passkey first');
    expect(dialogs).toEqual([]);
    expect((await t.store.upstreamIdentities.listUpstreamIdentities(user.id)).map((i) => i.subject)).toEqual(['only-one']);
    await expectNoAxeViolations(page, 'linked accounts, the last way in');
    await page.context().close();
  });
});
