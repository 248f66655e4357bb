/**
 * The email flows in Chromium, as a person does them, with mail delivered over TCP to a real SMTP
 * server in the test process and each link read from the parsed message:
 * sign-up -> mail -> verify -> authorize with `email` (whois shows it); forgot -> mail -> reset ->
 * the other browser's session is gone; change email -> mail -> the new address in whois.
 */
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, tokenRequest, type TestServer } from '../helpers.js';
import { linkOf, MailServer } from '../mail-server.js';
import { hasChromium, launchChromium, SCREENSHOTS_DIR, startCallbackServer, type CallbackServer } from './chromium.js';

let t: TestServer;
let smtp: MailServer;
let browser: Browser;
let callback: CallbackServer;
let callbackUrl: string;
let context: BrowserContext;
let page: Page;
let app: { clientId: string; clientSecret: string };
const name = `ef_${process.pid}`;
const email = `${name}@mail.example`;
const password = 'correct horse battery';

/** A mailed link, pointed at the test server (PUBLIC_URL is the server's own address here). */
function local(link: string): string {
  const url = new URL(link);
  expect(url.origin).toBe(t.baseUrl);
  return link;
}

async function whois(location: string): Promise<unknown> {
  const params = new URL(location).searchParams;
  const res = await tokenRequest(t, {
    grant_type: 'authorization_code',
    code: params.get('code')!,
    client_id: app.clientId,
    client_secret: app.clientSecret,
    redirect_uri: callbackUrl,
  });
  expect(res.status).toBe(200);
  const { access_token } = (await res.json()) as { access_token: string };
  return (await fetch(`${t.baseUrl}/api/oauth/whois`, { headers: { Authorization: `Bearer ${access_token}` } })).json();
}

function authorizeLink(scope: string): string {
  const q = new URLSearchParams({ response_type: 'code', client_id: app.clientId, redirect_uri: callbackUrl, scope, state: 'st' });
  return `${t.baseUrl}/oauth?${q}`;
}

describe.skipIf(!hasChromium)('email flows in Chromium', () => {
  beforeAll(async () => {
    smtp = await new MailServer().start();
    t = await startServer({ SMTP_URL: smtp.url });
    // Mailed links are built from PUBLIC_URL when sent: make it the port the test server got.
    t.config.publicUrl = t.baseUrl;
    callback = await startCallbackServer();
    callbackUrl = callback.url;
    browser = await launchChromium();
    context = await browser.newContext();
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
  });
  afterAll(async () => {
    await browser?.close();
    callback?.close();
    await t?.close();
    await smtp?.close();
  });

  it('sign-up mails a link; until it is followed the consent page refuses email and offers to resend', async () => {
    await page.goto(`${t.baseUrl}/signup`);
    await page.fill('input[name=name]', name);
    await page.fill('input[name=email]', email);
    await page.fill('input[name=password]', password);
    await Promise.all([page.waitForSelector('#sign-up-sent'), page.click('main button[type=submit]')]);
    await Promise.all([page.waitForURL(`${t.baseUrl}/signin`), page.click('#sign-in-link')]);
    await page.fill('input[name=name]', name);
    await page.fill('input[name=password]', password);
    await Promise.all([page.waitForURL(`${t.baseUrl}/account`), page.click('main form[action="/signin"] button[type=submit]')]);
    expect(await page.textContent('#email-state')).toBe('not verified');
    expect((await smtp.next(email)).mail.subject).toBe('Confirm your email address');

    await page.goto(`${t.baseUrl}/apps`);
    await page.fill('#app-name', 'Mail Client');
    await page.fill('#redirect-uris', callbackUrl);
    await page.click('#register');
    await page.waitForSelector('#new-secret:not([hidden])');
    app = { clientId: (await page.textContent('#new-client-id'))!, clientSecret: (await page.textContent('#new-client-secret'))! };

    await page.goto(authorizeLink('userinfo email'));
    expect(await page.textContent('#email-unverified .error')).toBe(
      'This app asks for your email address, and yours is not verified yet, so you cannot authorize it now.',
    );
    expect(await page.isDisabled('#authorize')).toBe(true);
    await page.screenshot({ path: path.join(SCREENSHOTS_DIR, 'consent-email-unverified.png'), fullPage: true });

    // Resend from the consent page, and come back to it.
    await page.click('#resend-verification');
    await page.waitForURL(`${t.baseUrl}/account/verification`);
    expect(await page.textContent('#notice')).toContain(`A new verification link is on its way to ${email}.`);
    expect(smtp.to(email)).toHaveLength(2);
    await Promise.all([page.waitForURL(authorizeLink('userinfo email')), page.click('#return')]);

    // Cancel still works.
    await Promise.all([page.waitForURL(`${callbackUrl}?**`), page.click('#cancel')]);
    expect(new URL(page.url()).searchParams.get('error')).toBe('access_denied');
  });

  it('following the mailed link verifies the address; then Authorize with email gives whois the address', async () => {
    await page.goto(local(linkOf(await smtp.next(email))));
    expect(await page.textContent('#notice')).toBe(`Your email address ${email} is verified.`);
    await page.screenshot({ path: path.join(SCREENSHOTS_DIR, 'email-verified.png'), fullPage: true });

    await page.goto(`${t.baseUrl}/account`);
    expect(await page.textContent('#email-state')).toBe('verified');

    await page.goto(authorizeLink('userinfo email'));
    expect(await page.isDisabled('#authorize')).toBe(false);
    expect(await page.$('#email-unverified')).toBeNull();
    await Promise.all([page.waitForURL(`${callbackUrl}?**`), page.click('#authorize')]);
    const user = await t.store.users.getUserByName(name);
    expect(await whois(page.url())).toEqual({ id: user!.id, name, email });
  });

  it('a verification link opened again says the address is verified; a tampered and an expired link each show a clear page with the way forward and change nothing', async () => {
    const used = linkOf(smtp.to(email)[1]!);
    const res = await page.goto(local(used));
    expect(res?.status()).toBe(200);
    expect(await page.textContent('h1')).toBe('Address verified');
    expect(await page.textContent('#notice')).toBe(`This link has been used already, and your email address ${email} is verified.`);
    expect(await page.getAttribute('main a', 'href')).toBe('/account');

    const tampered = used.replace(/token=(.)/, (_m, c: string) => `token=${c === 'A' ? 'B' : 'A'}`);
    expect((await page.goto(local(tampered)))?.status()).toBe(400);
    expect(await page.textContent('#error-message')).toBe('This link is not valid: it may be incomplete or changed. Ask for a new one.');
    expect(await page.textContent('#forward')).toBe('Go to your account');

    // A reset link left for more than an hour.
    smtp.clear();
    await page.goto(`${t.baseUrl}/forgot-password`);
    await page.fill('input[name=login]', name);
    await Promise.all([page.waitForURL(`${t.baseUrl}/forgot-password`), page.click('main button[type=submit]')]);
    const stale = linkOf(await smtp.next(email));
    t.clock.advance(3600 * 1000);
    try {
      expect((await page.goto(local(stale)))?.status()).toBe(400);
      expect(await page.textContent('#error-message')).toBe('This link has expired. Ask for a new one.');
      await Promise.all([page.waitForURL(`${t.baseUrl}/forgot-password`), page.click('#forward')]);
    } finally {
      t.clock.advance(-3600 * 1000);
    }
    expect((await t.store.users.getUserByName(name))!.email).toBe(email);
  });

  it('forgot password -> mail -> reset: the new password works and the other browser is signed out', async () => {
    const other = await browser.newContext();
    const tab = await other.newPage();
    await tab.goto(`${t.baseUrl}/signin`);
    await tab.fill('input[name=name]', name);
    await tab.fill('input[name=password]', password);
    await Promise.all([tab.waitForURL(`${t.baseUrl}/account`), tab.click('main button[type=submit]')]);

    const fresh = await browser.newContext();
    const reset = await fresh.newPage();
    await reset.goto(`${t.baseUrl}/signin`);
    await Promise.all([reset.waitForURL(`${t.baseUrl}/forgot-password`), reset.click('#forgot-password')]);
    smtp.clear();
    await reset.fill('input[name=login]', email);
    await reset.click('main button[type=submit]');
    expect(await reset.textContent('#notice')).toContain('If an account matches what you entered, a link to choose a new password is on its way');
    const d = await smtp.next(email);
    expect(d.mail.subject).toBe('Reset your password');

    await reset.goto(local(linkOf(d)));
    expect(await reset.textContent('#reset-name')).toBe(name);
    await reset.fill('input[name=password]', 'a whole new password');
    await reset.click('main button[type=submit]');
    expect(await reset.textContent('#notice')).toBe('Your new password is set, and every session of your account has been signed out.');
    await reset.screenshot({ path: path.join(SCREENSHOTS_DIR, 'password-reset.png'), fullPage: true });

    // Both earlier sessions are gone: the account page sends them to sign in.
    for (const p of [tab, page]) {
      await p.goto(`${t.baseUrl}/account`);
      expect(new URL(p.url()).pathname).toBe('/signin');
    }
    await page.fill('input[name=name]', name);
    await page.fill('input[name=password]', 'a whole new password');
    await Promise.all([page.waitForURL(`${t.baseUrl}/account`), page.click('main button[type=submit]')]);
    await other.close();
    await fresh.close();
  });

  it('change email -> mail to the new address (and a notice to the old) -> follow it -> whois shows the new address', async () => {
    const next = `${name}@moved.example`;
    smtp.clear();
    await page.goto(`${t.baseUrl}/account`);
    await page.fill('#new-email', next);
    await page.fill('#change-email-password', 'a whole new password');
    await Promise.all([page.waitForURL(`${t.baseUrl}/account/email`), page.click('#change-email')]);
    expect(await page.textContent('#notice')).toContain(`We sent a link to ${next}.`);
    expect((await smtp.next(email)).mail.subject).toBe('A change of your email address was requested');
    const d = await smtp.next(next);
    expect(d.mail.subject).toBe('Confirm your new email address');

    // Until followed, the account keeps its old, verified address.
    await page.goto(`${t.baseUrl}/account`);
    expect(await page.textContent('#email-address')).toBe(email);
    expect(await page.textContent('#email-state')).toBe('verified');

    await page.goto(local(linkOf(d)));
    expect(await page.textContent('#notice')).toBe(`Your account's email address is now ${next}, verified.`);
    await page.goto(`${t.baseUrl}/account`);
    expect(await page.textContent('#email-address')).toBe(next);

    // The app was granted `userinfo email` at the start: remembered consent answers without a page,
    // and the code it issues vouches for the new, verified address.
    await page.goto(authorizeLink('userinfo email'));
    await page.waitForURL(`${callbackUrl}?**`);
    const user = await t.store.users.getUserByName(name);
    expect(await whois(page.url())).toEqual({ id: user!.id, name, email: next });
  });
});
