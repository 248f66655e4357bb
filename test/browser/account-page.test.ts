/**
 * The account page as a person uses it, in Chromium at 1100x800: each form's result said right
 * after that form (in view, announced, the wrong field marked and focused, what was typed kept).
 */
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { UserRecord } from '../../src/store/types.js';
import { makeUser, startServer, TEST_PASSWORD, type TestServer } from '../helpers.js';
import { hasChromium, launchChromium } from './chromium.js';

let t: TestServer;
let browser: Browser;

async function signedIn(who: UserRecord, viewport = { width: 1100, height: 800 }): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(`${t.baseUrl}/signin`);
  await page.fill('input[name=name]', who.name);
  await page.fill('input[name=password]', TEST_PASSWORD);
  await Promise.all([page.waitForURL(`${t.baseUrl}/account`), page.click('button[type=submit]')]);
  return { context, page };
}

/** Where an element is in the window: its top and bottom in CSS pixels. */
async function box(locator: Locator): Promise<{ top: number; bottom: number }> {
  return locator.evaluate((e) => {
    const r = e.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom };
  });
}

/**
 * The error `slot` shows: the text, in the window, right below `form` (under 40 px apart), and
 * `field` marked invalid, described by it and focused.
 */
async function expectErrorBeside(page: Page, form: string, slot: string, field: string, text: string): Promise<void> {
  const error = page.locator(`#${slot}-error`);
  await expect.poll(() => error.textContent()).toBe(text);
  expect(await error.getAttribute('role')).toBe('alert');
  expect(await page.textContent(`#${slot}-status`)).toBe('');
  const at = await box(error);
  const formAt = await box(page.locator(form));
  expect(at.top).toBeGreaterThanOrEqual(0);
  expect(at.bottom).toBeLessThanOrEqual(800);
  expect(at.top - formAt.bottom).toBeGreaterThanOrEqual(0);
  expect(at.top - formAt.bottom).toBeLessThan(40);
  expect(await page.getAttribute(field, 'aria-invalid')).toBe('true');
  expect((await page.getAttribute(field, 'aria-describedby'))?.split(' ')).toContain(`${slot}-error`);
  expect(await page.evaluate(() => `#${document.activeElement?.id}`)).toBe(field);
  // The page has no status line of its own any more: nothing is said far from the form.
  expect(await page.locator('#status').count()).toBe(0);
}

describe.skipIf(!hasChromium)('the account page in Chromium', () => {
  let user: UserRecord;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    t = await startServer({}, { limits: { signInIp: { points: 1000, seconds: 600 } } });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });
  beforeEach(async () => {
    user = await makeUser(t);
    ({ context, page } = await signedIn(user));
    return () => context.close();
  });

  it('a wrong current password: said below the password form, in view, the typed passwords kept; a right one clears them', async () => {
    await page.fill('#current-password', 'not my password');
    await page.fill('#new-password', 'a new password for the account');
    await page.click('#change-password');
    await expectErrorBeside(page, '#password-form', 'password-result', '#current-password', 'Changing the password failed: The current password is wrong');
    expect(await page.inputValue('#current-password')).toBe('not my password');
    expect(await page.inputValue('#new-password')).toBe('a new password for the account');

    await page.fill('#current-password', TEST_PASSWORD);
    await page.click('#change-password');
    await expect.poll(() => page.textContent('#password-result-status')).toBe('Password changed; every other session was signed out');
    expect(await page.textContent('#password-result-error')).toBe('');
    expect(await page.getAttribute('#current-password', 'aria-invalid')).toBeNull();
    expect(await page.getAttribute('#current-password', 'aria-describedby')).toBeNull();
    expect([await page.inputValue('#current-password'), await page.inputValue('#new-password')]).toEqual(['', '']);
  });

  it('a failed deletion: said below the deletion form, in view, the password and the typed name kept', async () => {
    await page.fill('#delete-password', 'not my password');
    await page.fill('#delete-confirm', user.name);
    await page.click('#delete-account-button');
    await expectErrorBeside(page, '#delete-form', 'delete-result', '#delete-password', 'Deleting the account failed: The password is wrong');
    expect([await page.inputValue('#delete-password'), await page.inputValue('#delete-confirm')]).toEqual(['not my password', user.name]);

    await page.fill('#delete-password', TEST_PASSWORD);
    await page.fill('#delete-confirm', 'not my name');
    await page.click('#delete-account-button');
    await expectErrorBeside(page, '#delete-form', 'delete-result', '#delete-confirm', 'Deleting the account failed: Type your name exactly to confirm');
    // The password is no longer what is wrong.
    expect(await page.getAttribute('#delete-password', 'aria-invalid')).toBeNull();
    expect(await t.store.getUser(user.id)).toBeDefined();
  });

  it('a refused upload (a text file as picture): said below the picture form, in view, the file still chosen', async () => {
    await page.setInputFiles('#picture-file', { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not a picture') });
    await page.click('#picture-form button[type=submit]');
    await expectErrorBeside(page, '#picture-form', 'picture-result', '#picture-file', 'Uploading the picture failed: The file is not an image in a supported format');
    expect(await page.locator('#picture-file').evaluate((input: HTMLInputElement) => input.files?.[0]?.name)).toBe('notes.txt');
  });

  it('a refused change of address: the account page again, the reason beside the form, the typed address kept and its field focused', async () => {
    const other = await makeUser(t);
    const cases: [string, string, number, string, string][] = [
      ['moved@new.example', 'not my password', 403, '#change-email-password', 'The current password is wrong'],
      [other.email, TEST_PASSWORD, 409, '#new-email', 'Email address is already registered'],
      [user.email, TEST_PASSWORD, 400, '#new-email', 'This already is your email address'],
    ];
    for (const [address, password, status, field, message] of cases) {
      await page.fill('#new-email', address);
      await page.fill('#change-email-password', password);
      const [answer] = await Promise.all([page.waitForResponse(`${t.baseUrl}/account/email`), page.click('#change-email')]);
      expect(answer.status()).toBe(status);
      await page.waitForLoadState();
      expect(await page.textContent('h1')).toBe('Your account');
      expect(await page.inputValue('#new-email')).toBe(address);
      await expectErrorBeside(page, '#change-email-form', 'change-email-result', field, `Changing the address failed: ${message}`);
      // Only the wrong field is marked.
      expect(await page.locator('#email-section [aria-invalid]').count()).toBe(1);
    }
    expect((await t.store.getUser(user.id))!.email).toBe(user.email);
  });
});
