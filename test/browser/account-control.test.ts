/**
 * People in control of their account, in Chromium: remembered consent and prompt=none in the
 * traditional flow, connected apps revoked from the account page, password change ending another
 * browser's session, signing out one session and everywhere, downloading the data, and deletion.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRecord } from '../../src/domain/users.js';
import { makeClient, makeUser, startServer, TEST_PASSWORD, tokenRequest, type TestClient, type TestServer } from '../helpers.js';
import { hasChromium, launchChromium, SCREENSHOTS_DIR, startCallbackServer, type CallbackServer } from './chromium.js';

let t: TestServer;
let browser: Browser;
let callback: CallbackServer;
let callbackUrl: string;
let client: TestClient;
let user: UserRecord;
let owner: UserRecord;
let iss: string;
/** The user's main browser. */
let main: BrowserContext;
let page: Page;
const NEW_PASSWORD = 'a new password for the account';
let password = TEST_PASSWORD;

async function signedIn(who: UserRecord, pass = password): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  const tab = await context.newPage();
  tab.setDefaultTimeout(10_000);
  await tab.goto(`${t.baseUrl}/signin`);
  await tab.fill('input[name=name]', who.name);
  await tab.fill('input[name=password]', pass);
  await Promise.all([tab.waitForURL(`${t.baseUrl}/account`), tab.click('button[type=submit]')]);
  return { context, page: tab };
}

function link(extra: Record<string, string> = {}): string {
  return `${t.baseUrl}/oauth?${new URLSearchParams({ client_id: client.clientId, redirect_uri: callbackUrl, scope: 'userinfo', state: 'st', ...extra })}`;
}

function params(url: string): Record<string, string> {
  return Object.fromEntries(new URL(url).searchParams);
}

async function whois(code: string): Promise<Response> {
  const res = await tokenRequest(t, { grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: client.clientSecret, redirect_uri: callbackUrl });
  expect(res.status).toBe(200);
  const { access_token } = (await res.json()) as { access_token: string };
  return fetch(`${t.baseUrl}/api/oauth/whois`, { headers: { Authorization: `Bearer ${access_token}` } });
}

/** Whether an /account visit in this browser is still signed in (or sent to sign in). */
async function isSignedIn(tab: Page): Promise<boolean> {
  await tab.goto(`${t.baseUrl}/account`);
  return new URL(tab.url()).pathname === '/account';
}

describe.skipIf(!hasChromium)('account control in Chromium', () => {
  beforeAll(async () => {
    t = await startServer({}, { limits: { signInIp: { points: 1000, seconds: 600 } } });
    iss = t.config.publicUrl.replace(/\/+$/, '');
    callback = await startCallbackServer();
    callbackUrl = callback.url;
    owner = await makeUser(t);
    user = await makeUser(t);
    client = await makeClient(t, owner.id, [callbackUrl]);
    browser = await launchChromium();
    ({ context: main, page } = await signedIn(user));
  });
  afterAll(async () => {
    await browser?.close();
    callback?.close();
    await t?.close();
  });

  it('remembered consent: the first authorization shows the page, the next one goes straight back with a code and iss', async () => {
    await page.goto(link());
    await page.waitForSelector('#authorize');
    await Promise.all([page.waitForURL(`${callbackUrl}?**`), page.click('#authorize')]);
    expect((await whois(params(page.url()).code!)).status).toBe(200);

    const seen: string[] = [];
    page.on('framenavigated', (f) => f === page.mainFrame() && seen.push(f.url()));
    await page.goto(link());
    await page.waitForURL(`${callbackUrl}?**`);
    page.removeAllListeners('framenavigated');
    // No page of this service was shown on the way: the browser went straight to the client.
    expect(seen.every((u) => u.startsWith(callbackUrl))).toBe(true);
    const back = params(page.url());
    expect(Object.keys(back).sort()).toEqual(['code', 'iss', 'state']);
    expect(back.iss).toBe(iss);
    expect(await (await whois(back.code!)).json()).toEqual({ id: user.id, name: user.name });
  });

  it('prompt=none: login_required when signed out, a code when granted, consent_required for more scopes', async () => {
    const visitor = await browser.newContext();
    const tab = await visitor.newPage();
    await tab.goto(link({ prompt: 'none' }));
    await tab.waitForURL(`${callbackUrl}?**`);
    expect(params(tab.url())).toMatchObject({ error: 'login_required', state: 'st', iss });
    await visitor.close();

    await page.goto(link({ prompt: 'none' }));
    await page.waitForURL(`${callbackUrl}?**`);
    expect(Object.keys(params(page.url())).sort()).toEqual(['code', 'iss', 'state']);

    await page.goto(link({ prompt: 'none', scope: 'userinfo email' }));
    await page.waitForURL(`${callbackUrl}?**`);
    expect(params(page.url())).toMatchObject({ error: 'consent_required', state: 'st', iss });
  });

  it('the account page lists the connected app; Revoke access ends its token at once and the next authorization asks again', async () => {
    await page.goto(link());
    await page.waitForURL(`${callbackUrl}?**`);
    const res = await tokenRequest(t, { grant_type: 'authorization_code', code: params(page.url()).code!, client_id: client.clientId, client_secret: client.clientSecret });
    const { access_token } = (await res.json()) as { access_token: string };
    const ask = () => fetch(`${t.baseUrl}/api/oauth/whois`, { headers: { Authorization: `Bearer ${access_token}` } });
    expect((await ask()).status).toBe(200);

    await page.goto(`${t.baseUrl}/account`);
    const card = page.locator(`.grant[data-client-id="${client.clientId}"]`);
    await card.waitFor();
    expect(await card.locator('.grant-app').textContent()).toBe('Test App');
    expect(await card.textContent()).toContain(`by ${owner.name}`);
    expect(await card.locator('.grant-scopes').textContent()).toBe('It can:See your user id, name and profile picture');
    await page.screenshot({ path: path.join(SCREENSHOTS_DIR, 'account-control.png'), fullPage: true });
    // It asks first, as Rotate secret does: dismissed, nothing changes.
    const asked: string[] = [];
    const answer = (accept: boolean) => page.once('dialog', (dialog) => void (asked.push(`${dialog.type()}: ${dialog.message()}`), accept ? dialog.accept() : dialog.dismiss()));
    answer(false);
    await card.locator('.revoke-grant').click();
    await expect.poll(() => asked.length).toBe(1);
    expect(asked[0]).toBe('confirm: Revoke the access of Test App? Its tokens stop working at once, and it must ask you again.');
    expect((await ask()).status).toBe(200);
    expect(await card.count()).toBe(1);
    answer(true);
    await card.locator('.revoke-grant').click();
    await page.waitForSelector('#grants >> text=No app has access to your account.');
    expect(asked).toHaveLength(2);
    expect(await page.textContent('#grants-result-status')).toBe('Access of Test App revoked');

    const revoked = await ask();
    expect([revoked.status, await revoked.json()]).toEqual([401, { message: 'Access token has been revoked' }]);
    await page.goto(link());
    await page.waitForSelector('#authorize');
    expect(new URL(page.url()).pathname).toBe('/oauth');
  });

  it("changing the password on the account page ends another browser's session and keeps this one", async () => {
    const other = await signedIn(user);
    await page.goto(`${t.baseUrl}/account`);
    await page.waitForSelector('#sessions li.session >> nth=1');
    expect(await page.locator('#sessions li.session').count()).toBe(2);
    expect(await page.locator('#sessions li[data-current="true"]').count()).toBe(1);

    await page.fill('#current-password', 'not my password');
    await page.fill('#new-password', NEW_PASSWORD);
    await page.click('#change-password');
    await expect.poll(() => page.textContent('#password-result-error')).toBe('Changing the password failed: The current password is wrong');

    await page.fill('#current-password', password);
    await page.fill('#new-password', NEW_PASSWORD);
    await page.click('#change-password');
    await expect.poll(() => page.textContent('#password-result-status')).toBe('Password changed; every other session was signed out');
    password = NEW_PASSWORD;
    await expect.poll(() => page.locator('#sessions li.session').count()).toBe(1);

    expect(await isSignedIn(other.page)).toBe(false);
    expect(await isSignedIn(page)).toBe(true);
    await other.context.close();
  });

  it("signs out one other session from the list; that browser is signed out, this one is not", async () => {
    const other = await signedIn(user);
    await page.goto(`${t.baseUrl}/account`);
    const theirs = page.locator('#sessions li[data-current="false"]');
    await theirs.waitFor();
    await theirs.locator('.end-session').click();
    await expect.poll(() => page.locator('#sessions li.session').count()).toBe(1);
    expect(await isSignedIn(other.page)).toBe(false);
    expect(await isSignedIn(page)).toBe(true);
    await other.context.close();
  });

  it('Download my data saves one JSON file with the profile, email and connected apps', async () => {
    await page.goto(`${t.baseUrl}/account`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export')]);
    expect(download.suggestedFilename()).toBe(`account-${user.id}.json`);
    const data = JSON.parse(fs.readFileSync((await download.path()), 'utf8')) as { user: { id: number }; email: string; sessions: unknown[]; sign_ins: { user_agent: string }[] };
    expect(data.user.id).toBe(user.id);
    expect(data.email).toBe(user.email);
    expect(data.sessions).toHaveLength(1);
    // The sign-in history the page shows, in the file too: as many rows, the same browsers.
    const shown = await page.$$eval('#sign-ins td[data-user-agent]', (cells) => cells.map((c) => (c as HTMLElement).dataset.userAgent));
    expect(shown.length).toBeGreaterThan(0);
    expect(data.sign_ins.map((s) => s.user_agent)).toEqual(shown);
  });

  it('Sign out everywhere ends every session, this one included', async () => {
    const other = await signedIn(user);
    await page.goto(`${t.baseUrl}/account`);
    await Promise.all([page.waitForURL(`${t.baseUrl}/?done=signed-out-everywhere`), page.click('#signout-everywhere')]);
    expect(await isSignedIn(page)).toBe(false);
    expect(await isSignedIn(other.page)).toBe(false);
    await other.context.close();
  });

  it('deletes the account from the account page: the profile is gone and the name cannot sign in', async () => {
    await main.close();
    ({ context: main, page } = await signedIn(user));
    await page.fill('#delete-password', password);
    await page.fill('#delete-confirm', 'not my name');
    await page.click('#delete-account-button');
    await expect.poll(() => page.textContent('#delete-result-error')).toBe('Deleting the account failed: Type your name exactly to confirm');

    await page.fill('#delete-password', password);
    await page.fill('#delete-confirm', user.name);
    await Promise.all([page.waitForURL(`${t.baseUrl}/?done=account-deleted`), page.click('#delete-account-button')]);
    expect((await fetch(`${t.baseUrl}/api/users/info?id=${user.id}`)).status).toBe(404);
    expect((await fetch(`${t.baseUrl}/pfp/medium/${user.id}.webp`)).status).toBe(404);
    expect(await isSignedIn(page)).toBe(false);
    await page.fill('input[name=name]', user.name);
    await page.fill('input[name=password]', password);
    await page.click('button[type=submit]');
    await expect.poll(() => page.textContent('#error-message')).toBe('Wrong name or password');
  });
});
