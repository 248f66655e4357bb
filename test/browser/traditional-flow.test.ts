/**
 * The traditional flow in Chromium, as a person does it: sign up, register an app whose redirect
 * URI is a callback server on another port, follow the generated link, click Authorize or Cancel,
 * then the client's backend exchanges the code and asks whois.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeUser, startServer, TEST_PASSWORD, tokenRequest, type TestServer } from '../helpers.js';
import { hasChromium, launchChromium, SCREENSHOTS_DIR, startCallbackServer, type CallbackServer } from './chromium.js';

let t: TestServer;
let browser: Browser;
let callback: CallbackServer;
let callbackUrl: string;
let context: BrowserContext;
let page: Page;
let app: { clientId: string; clientSecret: string };
const name = `tf_${process.pid}`;

describe.skipIf(!hasChromium)('traditional flow in Chromium', () => {
  beforeAll(async () => {
    t = await startServer();
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
  });

  it('signs up through the form, is told to check the mail, signs in from there and lands on the account page', async () => {
    await page.goto(`${t.baseUrl}/signup`);
    await page.fill('input[name=name]', name);
    await page.fill('input[name=email]', `${name}@example.com`);
    await page.fill('input[name=password]', 'correct horse battery');
    await Promise.all([page.waitForSelector('#sign-up-sent'), page.click('main button[type=submit]')]);
    expect(await page.textContent('#sign-up-sent')).toBe(`We sent a mail to ${name}@example.com. Follow its link to confirm the address.`);
    await Promise.all([page.waitForURL(`${t.baseUrl}/signin`), page.click('#sign-in-link')]);
    await page.fill('input[name=name]', name);
    await page.fill('input[name=password]', 'correct horse battery');
    await Promise.all([page.waitForURL(`${t.baseUrl}/account`), page.click('main form[action="/signin"] button[type=submit]')]);
    await expect.poll(() => page.textContent('#profile-email')).toBe(`${name}@example.com`);
  });

  it('follows the verification link of the sign-up mail (the outbox, as without SMTP_URL), so the email scope can be granted', async () => {
    expect(await page.textContent('#email-state')).toBe('not verified');
    const [file] = fs.readdirSync(t.config.outboxDir);
    const mail = await simpleParser(fs.readFileSync(path.join(t.config.outboxDir, file!)));
    const link = new URL(/https?:\/\/\S+/.exec(mail.text!)![0]);
    await page.goto(`${t.baseUrl}${link.pathname}${link.search}`);
    expect(await page.textContent('#notice')).toBe(`Your email address ${name}@example.com is verified.`);
  });

  it('registers an app on the apps page and sees its secret once', async () => {
    await page.goto(`${t.baseUrl}/apps`);
    await page.fill('#app-name', 'Callback Client');
    await page.fill('#redirect-uris', callbackUrl);
    await page.click('#register');
    await page.waitForSelector('#new-secret:not([hidden])');
    app = { clientId: (await page.textContent('#new-client-id'))!, clientSecret: (await page.textContent('#new-client-secret'))! };
    expect(app.clientId).toMatch(/^[\w-]{11}$/);
    expect(app.clientSecret).toMatch(/^[\w-]{43}$/);
    await page.waitForSelector(`section.app[data-client-id="${app.clientId}"]`);
    await page.screenshot({ path: path.join(SCREENSHOTS_DIR, 'apps-page.png'), fullPage: true });
  });

  it("the link builder's scope checkboxes sit on their labels' line, just before the words (desktop and phone widths)", async () => {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 800 });
      const boxes = await page.$$eval(`section.app[data-client-id="${app.clientId}"] .choices label`, (labels) =>
        labels.map((label) => {
          const box = label.querySelector('input')!.getBoundingClientRect();
          const range = document.createRange();
          range.selectNodeContents(label);
          range.setStartAfter(label.querySelector('input')!);
          const words = range.getBoundingClientRect();
          return { text: range.toString().trim(), gap: words.left - box.right, centers: Math.abs(words.top + words.height / 2 - (box.top + box.height / 2)) };
        }),
      );
      expect(boxes.map((b) => b.text)).toEqual(['userinfo', 'email', 'openid', 'profile']);
      for (const b of boxes) {
        expect(b.gap, `${width}px ${b.text}`).toBeGreaterThanOrEqual(0);
        expect(b.gap, `${width}px ${b.text}`).toBeLessThan(12);
        expect(b.centers, `${width}px ${b.text}`).toBeLessThan(4);
      }
    }
    await page.setViewportSize({ width: 1280, height: 720 });
  });

  it('registers a public app: no secret shown, no rotate button, its post-logout address listed', async () => {
    await page.goto(`${t.baseUrl}/apps`);
    await page.fill('#app-name', 'Browser Client');
    await page.fill('#redirect-uris', callbackUrl);
    await page.fill('#post-logout-redirect-uris', `${new URL(callbackUrl).origin}/bye`);
    await page.check('#app-public');
    await page.click('#register');
    await expect.poll(() => page.textContent('#apps-result-status')).toBe('Registered Browser Client (public client: no secret; use PKCE)');
    expect(await page.isVisible('#new-secret')).toBe(false);
    const card = page.locator('section.app', { hasText: 'Browser Client' });
    await card.waitFor();
    expect(await card.locator('.client-type').textContent()).toBe('Public client: no secret; every sign-in needs PKCE (S256)');
    expect(await card.locator('.post-logout-uris').textContent()).toBe(`Post-logout redirect URIs: ${new URL(callbackUrl).origin}/bye`);
    expect(await card.locator('button.rotate').count()).toBe(0);
    expect(await card.locator('button.delete').count()).toBe(1);
    // The confidential app keeps its rotate button.
    expect(await page.locator(`section.app[data-client-id="${app.clientId}"] button.rotate`).count()).toBe(1);
    const clientId = (await card.getAttribute('data-client-id'))!;
    expect(await t.store.apps.getApp(clientId)).toMatchObject({ public: true, secretHash: null });
  });

  async function generatedLink(withEmail: boolean): Promise<string> {
    await page.goto(`${t.baseUrl}/apps`);
    const card = page.locator(`section.app[data-client-id="${app.clientId}"]`);
    await card.locator('.scope-email').setChecked(withEmail);
    return (await card.locator('.flow-link').getAttribute('href'))!;
  }

  /**
   * The link with prompt=consent: once the user has authorized the app, consent is remembered and
   * the plain link goes straight to the callback (test/browser/account-control.test.ts).
   */
  async function consentLink(withEmail: boolean): Promise<string> {
    const link = new URL(await generatedLink(withEmail));
    link.searchParams.set('prompt', 'consent');
    return link.toString();
  }

  async function exchange(location: string): Promise<unknown> {
    const params = new URL(location).searchParams;
    expect(params.get('state')).toBe('state123');
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

  it('Authorize with the email scope: the callback gets code and state; whois returns the user with email', async () => {
    const link = await generatedLink(true);
    expect(link).toContain(`${t.baseUrl}/oauth?response_type=code&client_id=${app.clientId}`);
    await page.goto(link);
    expect(await page.textContent('#app-name')).toBe('Callback Client');
    expect(await page.textContent('#app-owner')).toBe(name);
    expect(await page.locator('#scopes li').allTextContents()).toEqual([
      'See your user id, name and profile picture userinfo',
      'See your email address email',
    ]);
    await page.screenshot({ path: path.join(SCREENSHOTS_DIR, 'consent-page.png'), fullPage: true });
    await Promise.all([page.waitForURL(`${callbackUrl}?**`), page.click('#authorize')]);
    const user = await t.store.users.getUserByName(name);
    expect(await exchange(page.url())).toEqual({ id: user!.id, name, email: `${name}@example.com` });
  });

  it('Authorize without the email scope: whois has no email', async () => {
    await page.goto(await consentLink(false));
    await Promise.all([page.waitForURL(`${callbackUrl}?**`), page.click('#authorize')]);
    expect(await exchange(page.url())).toEqual({ id: (await t.store.users.getUserByName(name))!.id, name });
  });

  it('Cancel sends access_denied to the callback', async () => {
    await page.goto(await consentLink(false));
    await Promise.all([page.waitForURL(`${callbackUrl}?**`), page.click('#cancel')]);
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({
      error: 'access_denied',
      error_description: 'The user did not consent.',
      state: 'state123',
      iss: t.config.publicUrl,
    });
  });

  it('a tampered redirect_uri gets the error page and no redirect', async () => {
    const link = new URL(await generatedLink(false));
    link.searchParams.set('redirect_uri', `${callbackUrl}/../evil`);
    const res = await page.goto(link.toString());
    expect(res?.status()).toBe(400);
    expect(page.url()).toBe(link.toString());
    expect(await page.textContent('#error-message')).toBe('The redirect_uri is not registered for this app');
  });

  it('a signed-out visitor signs in first and comes back to the consent page', async () => {
    const fresh = await browser.newContext();
    const tab = await fresh.newPage();
    const link = await consentLink(false);
    await tab.goto(link);
    expect(new URL(tab.url()).pathname).toBe('/signin');
    await tab.fill('input[name=name]', name);
    await tab.fill('input[name=password]', 'correct horse battery');
    await Promise.all([tab.waitForURL(link), tab.click('button[type=submit]')]);
    expect(await tab.textContent('#app-name')).toBe('Callback Client');
    await fresh.close();
  });

  it('the consent page sits in the middle, names where the person will be sent, and "Not you?" signs out and comes back for the other person', async () => {
    const fresh = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const tab = await fresh.newPage();
    const link = await consentLink(false);
    await tab.goto(link);
    await tab.fill('input[name=name]', name);
    await tab.fill('input[name=password]', 'correct horse battery');
    await Promise.all([tab.waitForURL(link), tab.click('button[type=submit]')]);
    expect(await tab.textContent('#consent-user')).toBe(name);
    expect(await tab.textContent('#redirect-host')).toBe(new URL(callbackUrl).host);
    // Centred: as much room on its left as on its right.
    const card = (await tab.locator('.consent').boundingBox())!;
    expect(Math.abs(card.x - (1280 - card.x - card.width))).toBeLessThan(2);

    const other = await makeUser(t);
    await Promise.all([tab.waitForURL(`${t.baseUrl}/signin?**`), tab.click('#not-you')]);
    expect(new URL(tab.url()).searchParams.get('return_to')).toBe(link.slice(t.baseUrl.length));
    // Signed out: the header offers Sign in again, and the account page asks for it.
    expect(await tab.locator('header .who').count()).toBe(0);
    await tab.fill('input[name=name]', other.name);
    await tab.fill('input[name=password]', TEST_PASSWORD);
    await Promise.all([tab.waitForURL(link), tab.click('main button[type=submit]')]);
    expect(await tab.textContent('#consent-user')).toBe(other.name);
    await fresh.close();
  });

  it("a visitor who follows the header's Sign up from an app's sign-in page lands back on the consent page; Authorize looks disabled until the address is verified", async () => {
    const fresh = await browser.newContext();
    const tab = await fresh.newPage();
    const link = await generatedLink(true);
    await tab.goto(link);
    expect(new URL(tab.url()).pathname).toBe('/signin');
    const returnTo = new URL(tab.url()).searchParams.get('return_to')!;
    expect(await tab.getAttribute('header a:text-is("Sign up")', 'href')).toBe(`/signup?return_to=${encodeURIComponent(returnTo)}`);
    await Promise.all([tab.waitForURL(`${t.baseUrl}/signup?**`), tab.click('header a:text-is("Sign up")')]);
    const newcomer = `${name}_new`;
    await tab.fill('input[name=name]', newcomer);
    await tab.fill('input[name=email]', `${newcomer}@example.com`);
    await tab.fill('input[name=password]', 'correct horse battery');
    await Promise.all([tab.waitForSelector('#sign-up-sent'), tab.click('main button[type=submit]')]);
    // The sign-in link of "check your mail" keeps where the visitor was going.
    await Promise.all([tab.waitForURL(`${t.baseUrl}/signin?**`), tab.click('#sign-in-link')]);
    expect(new URL(tab.url()).searchParams.get('return_to')).toBe(returnTo);
    await tab.fill('input[name=name]', newcomer);
    await tab.fill('input[name=password]', 'correct horse battery');
    await Promise.all([tab.waitForURL(link), tab.click('main form[action="/signin"] button[type=submit]')]);
    expect(await tab.textContent('#app-name')).toBe('Callback Client');
    // The email scope and an unverified address: Authorize is disabled, and looks it.
    expect(await tab.isDisabled('#authorize')).toBe(true);
    const look = (selector: string) =>
      tab.$eval(selector, (el) => {
        const s = getComputedStyle(el);
        return { background: s.backgroundColor, color: s.color, cursor: s.cursor, border: s.borderStyle };
      });
    expect(await look('#authorize')).toEqual({ background: 'rgb(237, 242, 247)', color: 'rgb(45, 55, 72)', cursor: 'not-allowed', border: 'dashed' });
    expect(await look('#resend-verification')).toEqual({ background: 'rgb(43, 108, 176)', color: 'rgb(255, 255, 255)', cursor: 'pointer', border: 'solid' });
    await tab.screenshot({ path: path.join(SCREENSHOTS_DIR, 'consent-disabled-authorize.png'), fullPage: true });
    await fresh.close();
  });

  it('the consent page cannot be framed by another origin', async () => {
    const link = await consentLink(false);
    const framer = http.createServer((_req, res) => {
      res.setHeader('Content-Type', 'text/html');
      res.end(`<!doctype html><iframe id="f" onload="this.dataset.loaded = 'yes'" src="${link.replace(/"/g, '&quot;')}"></iframe>`);
    });
    await new Promise<void>((resolve) => framer.listen(0, '127.0.0.1', resolve));
    try {
      const tab = await context.newPage();
      const consent = tab.waitForResponse((response) => response.url() === link);
      await tab.goto(`http://127.0.0.1:${(framer.address() as AddressInfo).port}/`);
      // The consent page itself was served (signed in, the form in it) with the headers that refuse framing...
      const response = await consent;
      expect(response.status()).toBe(200);
      expect(response.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(response.headers()['x-frame-options']).toBe('DENY');
      // (the same request outside a frame, with the same cookies, is the consent form)
      expect(await (await context.request.get(link)).text()).toContain('id="authorize"');
      // ...and once the frame has loaded, Chromium shows its error page there instead: no consent form.
      await tab.waitForFunction(() => (document.getElementById('f') as HTMLIFrameElement).dataset.loaded === 'yes');
      const framed = tab.frames().find((f) => f !== tab.mainFrame());
      expect(framed).toBeDefined();
      expect(await framed!.$('#authorize')).toBeNull();
      await tab.close();
    } finally {
      framer.close();
    }
  });

});
