/**
 * Passkeys in Chromium with its virtual authenticator (CDP WebAuthn domain): add one on the
 * account page, rename it, sign out, sign in with it (no name typed) through the name field's
 * autofill and then by the button, remove it.
 * The provider is http://localhost:<port> (PUBLIC_URL too): an IP address is no valid RP ID.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRecord } from '../../src/domain/users.js';
import { makeUser, startServer, TEST_PASSWORD, type TestServer } from '../helpers.js';
import { hasChromium, launchChromium } from './chromium.js';
import { NOTHING } from '../../src/domain/security-events.js';

let t: TestServer;
let browser: Browser;
let user: UserRecord;
let origin: string;

describe.skipIf(!hasChromium)('passkeys in Chromium', () => {
  beforeAll(async () => {
    t = await startServer();
    origin = `http://localhost:${new URL(t.baseUrl).port}`;
    t.config.publicUrl = origin;
    user = await makeUser(t);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('adds a passkey, renames it, signs in with it without a name (autofill, then the button), and removes it', async () => {
    const context = await browser.newContext();
    const page: Page = await context.newPage();
    page.setDefaultTimeout(10_000);
    page.on('dialog', (dialog) => void dialog.accept());
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
    });

    await page.goto(`${origin}/signin`);
    expect(await page.getAttribute('input[name=name]', 'autocomplete')).toBe('username webauthn');
    await page.fill('input[name=name]', user.name);
    await page.fill('input[name=password]', TEST_PASSWORD);
    await Promise.all([page.waitForURL(`${origin}/account`), page.click('button[type=submit]')]);

    // Adding one asks for the password first: a wrong one is said, and nothing is registered.
    await page.fill('#add-passkey-password', 'not my password');
    await page.click('#add-passkey');
    await expect.poll(() => page.textContent('#add-passkey-result-error')).toBe('Adding a passkey failed: The password is wrong');
    expect(await page.getAttribute('#add-passkey-password', 'aria-invalid')).toBe('true');
    await page.fill('#add-passkey-password', TEST_PASSWORD);
    await page.click('#add-passkey');
    await page.waitForSelector('#passkeys li.passkey');
    expect(await page.textContent('#passkeys-result-status')).toBe('Added Passkey 1');
    expect(await page.inputValue('#passkeys .passkey-name')).toBe('Passkey 1');
    expect(await page.textContent('#passkeys .passkey-times')).toMatch(/^Added .+, never used$/);

    await page.fill('#passkeys .passkey-name', 'This laptop');
    await page.click('#passkeys .rename-passkey');
    await page.waitForFunction(() => document.getElementById('passkeys-result-status')?.textContent === 'Passkey renamed to This laptop');
    expect((await t.store.passkeys.listPasskeys(user.id)).map((p) => p.name)).toEqual(['This laptop']);

    // Signed out, the sign-in page offers the passkey in the name field's autofill (conditional
    // mediation): the virtual authenticator picks it at once, and the page signs in to return_to.
    await Promise.all([page.waitForURL(`${origin}/`), page.click('form[action="/signout"] button')]);
    await Promise.all([page.waitForURL(`${origin}/account`), page.goto(`${origin}/signin?return_to=%2Faccount`)]);
    expect(await page.textContent('#profile-name')).toBe(user.name);

    // Without autofill (a browser that has none), the button signs in, no name typed.
    await page.addInitScript(() => {
      PublicKeyCredential.isConditionalMediationAvailable = () => Promise.resolve(false);
    });
    await Promise.all([page.waitForURL(`${origin}/`), page.click('form[action="/signout"] button')]);
    await page.goto(`${origin}/signin?return_to=%2Faccount`);
    await Promise.all([page.waitForURL(`${origin}/account`), page.click('#passkey-signin')]);
    expect(await page.textContent('#profile-name')).toBe(user.name);
    await page.waitForSelector('#passkeys li.passkey');
    expect(await page.textContent('#passkeys .passkey-times')).toMatch(/, last used /);

    // With an authenticator app on, the passkey stands in for the password for 5 minutes.
    await t.store.authenticatorApp.savePendingTotp(user.id, 'sealed-seed', t.clock.now());
    await t.store.authenticatorApp.confirmTotp(user.id, 'sealed-seed', 1, t.clock.now(), ['recovery-code-hash'], NOTHING);
    await page.reload();
    await page.click('#totp-passkey-confirm');
    await page.waitForFunction(() => document.getElementById('totp-passkey-result-status')?.textContent === 'Confirmed with a passkey: for 5 minutes, leave the password empty.');
    await page.click('#recovery-new');
    await page.waitForSelector('#recovery-codes li');
    expect(await t.store.authenticatorApp.countRecoveryCodes(user.id)).toBe(10);
    await page.click('#totp-disable');
    await page.waitForSelector('#totp-off', { state: 'visible' });
    expect(await t.store.authenticatorApp.getTotp(user.id)).toBeUndefined();
    t.clock.advance(5 * 60 * 1000);

    // Removing a passkey: the password again, or a passkey confirmation (5 minutes have passed).
    await page.click('#passkeys .remove-passkey');
    await page.waitForSelector('#passkeys .passkey-remove-password', { state: 'visible' });
    await page.fill('#passkeys .passkey-remove-password', 'not my password');
    await page.click('#passkeys .remove-passkey-confirmed');
    await page.waitForFunction(() => document.querySelector('#passkeys [role=alert]')?.textContent === 'Removing the passkey failed: The password is wrong');
    expect(await page.getAttribute('#passkeys .passkey-remove-password', 'aria-invalid')).toBe('true');
    await page.click('#passkeys .remove-passkey-with-passkey');
    await page.waitForFunction(() => document.getElementById('passkey-list')?.textContent === 'No passkeys yet.');
    expect(await t.store.passkeys.listPasskeys(user.id)).toEqual([]);
    await context.close();
  });
});
