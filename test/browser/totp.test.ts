/**
 * The authenticator app in Chromium: set up from the account page (codes computed from the
 * address #totp-uri shows), recovery codes shown once, then a sign-in that asks for a code after
 * the password, and a recovery code that works once.
 */
import fs from 'node:fs';
import { TOTP, URI } from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRecord } from '../../src/domain/users.js';
import { makeUser, startServer, TEST_PASSWORD, type TestServer } from '../helpers.js';
import { hasChromium, launchChromium } from './chromium.js';

let t: TestServer;
let browser: Browser;
let user: UserRecord;

/** Signs in with the password in a new browser; ends on the page the form led to. */
async function passwordStep(): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(`${t.baseUrl}/signin`);
  await page.fill('input[name=name]', user.name);
  await page.fill('input[name=password]', TEST_PASSWORD);
  await Promise.all([page.waitForLoadState('load'), page.click('button[type=submit]')]);
  return page;
}

describe.skipIf(!hasChromium)('authenticator app in Chromium', () => {
  beforeAll(async () => {
    t = await startServer({}, { limits: { signInIp: { points: 1000, seconds: 600 } } });
    user = await makeUser(t);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  // A long walk (setup, copy, download, three sign-ins): more than the default 30 s on a loaded machine.
  it('sets up from the account page, then signs in with a code after the password; a recovery code works once', async () => {
    const page = await passwordStep();
    expect(new URL(page.url()).pathname).toBe('/account');
    const csp: string[] = [];
    page.on('console', (m) => /Content Security Policy/.test(m.text()) && csp.push(m.text()));

    // Setting up asks for the password first.
    await page.fill('#totp-start-password', 'not my password');
    await page.click('#totp-start');
    await expect.poll(() => page.textContent('#totp-start-result-error')).toBe('Starting the setup failed: The password is wrong');
    await page.fill('#totp-start-password', TEST_PASSWORD);
    await page.click('#totp-start');
    // The address appears once the page's request for it has answered.
    await page.waitForFunction(() => /^otpauth:/.test(document.getElementById('totp-uri')?.textContent ?? ''));
    const uri = (await page.locator('#totp-uri').textContent())!;
    const totp = URI.parse(uri) as TOTP;
    expect(totp).toBeInstanceOf(TOTP);
    // The phone app lists the account under the service's name, not its host.
    expect([totp.issuer, totp.label]).toEqual(['Identity', user.name]);
    // The QR code is an image the page's CSP lets load, with alt text.
    await page.waitForFunction(() => (document.getElementById('totp-qr') as HTMLImageElement).naturalWidth > 0);
    expect(await page.getAttribute('#totp-qr', 'alt')).toBe('QR code of the authenticator app address shown below');
    // The setup key a phone app asks for when typed by hand: the address's secret, in groups of four.
    expect(await page.textContent('#totp-setup-key')).toBe(totp.secret.base32.match(/.{1,4}/g)!.join(' '));
    expect(await page.isVisible('#totp-setup-key')).toBe(true);

    await page.fill('#totp-code', totp.generate({ timestamp: t.clock.now() + 10 * 60_000 }));
    await page.click('#totp-confirm');
    await expect.poll(() => page.locator('#totp-confirm-result-error').textContent()).toContain('That code is not right');
    await page.fill('#totp-code', totp.generate({ timestamp: t.clock.now() }));
    await page.click('#totp-confirm');
    await page.locator('#recovery-codes li').nth(9).waitFor();
    const codes = await page.locator('#recovery-codes li').allTextContents();
    expect(codes).toHaveLength(10);
    // Copy: the codes, one a line, on the clipboard; the button says so beside it.
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.baseUrl });
    await page.click('#copy-recovery-codes');
    await expect.poll(() => page.textContent('#recovery-result-status')).toBe('Copied the recovery codes to the clipboard');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(codes.join('\n'));
    // Download: a text file made in the page, the same codes.
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-recovery-codes')]);
    expect(download.suggestedFilename()).toBe('recovery-codes.txt');
    const file = fs.readFileSync(await download.path(), 'utf8');
    expect(file).toBe(`Recovery codes for your account at ${new URL(t.baseUrl).host}. Each works once.\n\n${codes.join('\n')}\n`);
    expect(await page.isVisible('#totp-on')).toBe(true);
    expect(await page.textContent('#totp-ended-sessions')).toBe('No other session was signed in.');
    expect(csp).toEqual([]);
    await page.context().close();

    // The setup's code is used up: sign-in takes the next step's.
    t.clock.advance(30_000);
    const second = await passwordStep();
    expect(new URL(second.url()).pathname).toBe('/signin/otp');
    await second.fill('#otp', totp.generate({ timestamp: t.clock.now() }));
    await Promise.all([second.waitForURL(`${t.baseUrl}/account`), second.click('button[type=submit]')]);
    expect(await second.textContent('#profile-name')).toBe(user.name);
    await second.context().close();

    const recovery = await passwordStep();
    await recovery.fill('#otp', codes[0]!);
    await Promise.all([recovery.waitForURL(`${t.baseUrl}/account`), recovery.click('button[type=submit]')]);
    await recovery.context().close();

    const reused = await passwordStep();
    await reused.fill('#otp', codes[0]!);
    // The refusal is the same page again (same address): wait for the answer to the POST itself.
    await Promise.all([
      reused.waitForResponse((r) => new URL(r.url()).pathname === '/signin/otp' && r.request().method() === 'POST'),
      reused.click('button[type=submit]'),
    ]);
    await reused.waitForLoadState('load');
    expect(new URL(reused.url()).pathname).toBe('/signin/otp');
    expect(await reused.textContent('#error-message[role=alert]')).toBe('That code is not right, or it was used already');
    expect(await reused.inputValue('#otp')).toBe(codes[0]);
    await reused.context().close();
  }, 90_000);
});
