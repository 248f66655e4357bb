/**
 * The device page (/device, RFC 8628's verification page) in Chromium: signed out, a device's
 * verification_uri_complete goes through sign-in and back to the form with the code in it; a wrong
 * and a malformed code are refused on the form; the right code typed loosely shows the app, its
 * owner and the scopes; Approve lets the device's poll of the token endpoint get a token for this
 * person, Deny makes it access_denied; a decided code cannot be used again. The flow runs once, at
 * a phone's width (390x844); axe and a screenshot check the form, its error, the confirmation and
 * both results at that width and at a desktop's (1280x800). The provider is
 * http://localhost:<port> (PUBLIC_URL too), as a person's browser sees it.
 */
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRecord } from '../../src/domain/users.js';
import { Agent, makeUser, signedInAgent, startServer, TEST_PASSWORD, tokenRequest, type TestServer } from '../helpers.js';
import { registerApp, type RegisteredApp } from '../oidc-flow.js';
import { expectNoAxeViolations } from './axe.js';
import { hasChromium, launchChromium, SCREENSHOTS_DIR } from './chromium.js';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const APP_NAME = 'Living Room Quiz';
/** The widths the page is checked at; the flow itself runs at the last. */
const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;
const FLOW_VIEWPORT = VIEWPORTS[VIEWPORTS.length - 1]!;

let t: TestServer;
let browser: Browser;
let origin: string;
let app: RegisteredApp;
let owner: UserRecord;

interface DeviceAnswer {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

/** What a device does first: POST /api/oauth/device_authorization (a public client: its client_id only). */
async function startDevice(scope = 'userinfo email'): Promise<DeviceAnswer> {
  const res = await fetch(`${t.baseUrl}/api/oauth/device_authorization`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: app.client_id, scope }),
  });
  const body = (await res.json()) as DeviceAnswer;
  expect({ status: res.status, body }).toEqual({
    status: 200,
    body: {
      device_code: expect.stringMatching(/^[\w-]{43}$/),
      user_code: expect.stringMatching(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/),
      verification_uri: `${origin}/device`,
      verification_uri_complete: `${origin}/device?user_code=${body.user_code}`,
      expires_in: 600,
      interval: 5,
    },
  });
  return body;
}

/** The device's poll of the token endpoint: status and raw body. */
async function poll(device: DeviceAnswer): Promise<[number, string]> {
  const res = await tokenRequest(t, { grant_type: DEVICE_GRANT, device_code: device.device_code, client_id: app.client_id });
  return [res.status, await res.text()];
}

/** Clicks one of the page's submit buttons and waits for the page POST /device answers with; its status. */
async function submit(page: Page, button: string): Promise<number> {
  const [res] = await Promise.all([page.waitForResponse((r) => new URL(r.url()).pathname === '/device' && r.request().method() === 'POST'), page.click(button)]);
  await page.waitForLoadState('load');
  return res.status();
}

/**
 * axe on the page as it is now, and a screenshot in test-artifacts/screenshots/, at each width; the
 * page is left at the last (the phone's, where the flow runs).
 */
async function check(page: Page, state: string): Promise<void> {
  for (const viewport of VIEWPORTS) {
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    await page.screenshot({ path: path.join(SCREENSHOTS_DIR, `device-${viewport.name}-${state}.png`), fullPage: true });
    await expectNoAxeViolations(page, `device page, ${state} (${viewport.name})`);
  }
}

const scopeList = (page: Page) => page.locator('#scopes li').evaluateAll((items) => items.map((li) => [li.getAttribute('data-scope'), li.textContent]));

describe.skipIf(!hasChromium)('the device page in Chromium', () => {
  beforeAll(async () => {
    const launched = launchChromium();
    t = await startServer({}, { limits: { signInIp: { points: 1000, seconds: 600 } } });
    origin = `http://localhost:${new URL(t.baseUrl).port}`;
    t.config.publicUrl = origin;
    const developer = await signedInAgent(t);
    owner = developer.user;
    app = await registerApp(developer.agent, { name: APP_NAME, redirect_uris: ['https://quiz.example/cb'], public: true, grant_types: ['authorization_code', DEVICE_GRANT] });
    browser = await launched;
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('signed out, POST /device goes to sign in and back to /device with the typed code', async () => {
    const visitor = new Agent(t);
    const res = await visitor.form('/device', { user_code: 'wdjb mjht' });
    expect([res.status, res.headers.get('location')]).toEqual([303, '/signin?return_to=%2Fdevice%3Fuser_code%3Dwdjb%2520mjht']);
    const page = await visitor.fetch('/device');
    expect([page.status, page.headers.get('location')]).toEqual([303, '/signin?return_to=%2Fdevice']);
  });

  it('signs in on the way, refuses wrong codes, approves one device and denies another (checked at the phone and desktop widths)', async () => {
    const user = await makeUser(t);
    const device = await startDevice();
    const page = await (await browser.newContext({ viewport: { width: FLOW_VIEWPORT.width, height: FLOW_VIEWPORT.height } })).newPage();
    page.setDefaultTimeout(10_000);

    // Signed out: the device's address leads through sign-in and back, the code filled in.
    await page.goto(device.verification_uri_complete);
    expect(page.url()).toBe(`${origin}/signin?return_to=${encodeURIComponent(`/device?user_code=${device.user_code}`)}`);
    await page.fill('input[name=name]', user.name);
    await page.fill('input[name=password]', TEST_PASSWORD);
    await Promise.all([page.waitForURL(device.verification_uri_complete), page.click('main button[type=submit]')]);
    expect(await page.textContent('h1')).toBe('Connect a device');
    expect(await page.inputValue('#user-code')).toBe(device.user_code);
    expect(await page.textContent('label:has(#user-code)')).toBe('Code shown on your device ');
    const field = page.locator('#user-code');
    expect([await field.getAttribute('autocomplete'), await field.getAttribute('autocapitalize'), await field.getAttribute('spellcheck')]).toEqual([
      'one-time-code',
      'characters',
      'false',
    ]);
    expect(await page.locator('#device-form #device-continue').textContent()).toBe('Continue');
    expect(await page.locator('#device-error').count()).toBe(0);
    await check(page, 'form');

    // A well-formed code nobody was given: 400, the reason under the field, what was typed kept.
    await page.fill('#user-code', 'BBBB-BBBB');
    expect(await submit(page, '#device-continue')).toBe(400);
    expect(await page.textContent('#device-error')).toBe('That code is not valid: check it on your device and type it again');
    expect(await page.getAttribute('#device-error', 'role')).toBe('alert');
    expect([await page.inputValue('#user-code'), await field.getAttribute('aria-invalid'), await field.getAttribute('aria-describedby')]).toEqual([
      'BBBB-BBBB',
      'true',
      'device-error',
    ]);
    await check(page, 'error');

    // Not even shaped like a code.
    await page.fill('#user-code', 'WDJB-MJH');
    expect(await submit(page, '#device-continue')).toBe(400);
    expect(await page.textContent('#device-error')).toBe('That is not a code: it is 8 letters, like WDJB-MJHT');

    // The right code in lower case without its dash: the app, its owner, what it asks.
    await page.fill('#user-code', device.user_code.toLowerCase().replace('-', ''));
    expect(await submit(page, '#device-continue')).toBe(200);
    expect(await page.textContent('#device-app-name')).toBe(APP_NAME);
    expect(await page.textContent('#device-app-owner')).toBe(owner.name);
    expect(await scopeList(page)).toEqual([
      ['userinfo', 'See your user id, name and profile picture userinfo'],
      ['email', 'See your email address email'],
    ]);
    expect(await page.inputValue('input[type=hidden][name=user_code]')).toBe(device.user_code);
    expect(await page.locator('#device-approve').textContent()).toBe('Approve');
    expect([await page.getAttribute('#device-approve', 'name'), await page.getAttribute('#device-approve', 'value'), await page.isEnabled('#device-approve')]).toEqual([
      'decision',
      'approve',
      true,
    ]);
    expect([await page.locator('#device-deny').textContent(), await page.getAttribute('#device-deny', 'value')]).toEqual(['Deny', 'deny']);
    await check(page, 'confirmation');

    // Not decided yet: the device still waits.
    expect(await poll(device)).toEqual([
      400,
      '{"message":"The person has not approved or denied this device yet","error":"authorization_pending","error_description":"The person has not approved or denied this device yet"}',
    ]);
    t.clock.advance(5_000);

    expect(await submit(page, '#device-approve')).toBe(200);
    expect(await page.textContent('#device-result')).toBe(`You approved ${APP_NAME}. Go back to your device: it signs you in within a few seconds.`);
    await check(page, 'approved');

    // The device's next poll gets a token, and the token is this person's.
    const [status, raw] = await poll(device);
    const token = /^\{"access_token":"([\w-]{43})","token_type":"Bearer","expires_in":600\}$/.exec(raw)?.[1];
    expect([status, token !== undefined], raw).toEqual([200, true]);
    const whois = await fetch(`${t.baseUrl}/api/oauth/whois`, { headers: { Authorization: `Bearer ${token}` } });
    expect([whois.status, await whois.text()]).toEqual([200, `{"id":${user.id},"name":"${user.name}","email":"${user.email}"}`]);

    // A second device, denied: its poll says so.
    const second = await startDevice();
    await page.goto(second.verification_uri_complete);
    expect(await page.inputValue('#user-code')).toBe(second.user_code);
    expect(await submit(page, '#device-continue')).toBe(200);
    expect(await submit(page, '#device-deny')).toBe(200);
    expect(await page.textContent('#device-result')).toBe(`You denied ${APP_NAME}. Your device will say so.`);
    await check(page, 'denied');
    expect(await poll(second)).toEqual([400, '{"message":"The person denied this device","error":"access_denied","error_description":"The person denied this device"}']);

    // Either code typed again: decided already.
    for (const decided of [second.user_code, device.user_code]) {
      await page.goto(`${origin}/device`);
      expect(await page.inputValue('#user-code')).toBe('');
      await page.fill('#user-code', decided);
      expect(await submit(page, '#device-continue')).toBe(400);
      expect(await page.textContent('#device-error')).toBe('That code has been used already: start again on your device');
    }
    await page.context().close();
  });

  it('an unverified address cannot approve the email scope: the notice, Approve disabled, and a forced approval refused (403)', async () => {
    const user = await makeUser(t, undefined, { verified: false });
    const device = await startDevice();
    const page = await (await browser.newContext()).newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${origin}/signin`);
    await page.fill('input[name=name]', user.name);
    await page.fill('input[name=password]', TEST_PASSWORD);
    await Promise.all([page.waitForURL(`${origin}/account`), page.click('main button[type=submit]')]);
    await page.goto(device.verification_uri_complete);
    expect(await submit(page, '#device-continue')).toBe(200);
    expect(await page.textContent('#email-unverified p.error')).toBe(
      'This app asks for your email address, and yours is not verified yet, so you cannot authorize it now.',
    );
    expect(await page.isDisabled('#device-approve')).toBe(true);
    await expectNoAxeViolations(page, 'device page, email not verified');

    await page.evaluate(() => document.getElementById('device-approve')!.removeAttribute('disabled'));
    expect(await submit(page, '#device-approve')).toBe(403);
    expect(await page.textContent('#device-error')).toBe('The email scope needs a verified email address, and you have not verified yours yet');
    expect(await page.inputValue('#user-code')).toBe(device.user_code);
    // Nothing was decided: the device still waits.
    expect((await poll(device))[1]).toBe(
      '{"message":"The person has not approved or denied this device yet","error":"authorization_pending","error_description":"The person has not approved or denied this device yet"}',
    );
    await page.context().close();
  });
});
