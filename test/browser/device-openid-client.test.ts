/**
 * openid-client v6's device authorization grant (RFC 8628) against the real server, while a person
 * approves or denies in Chromium on /device (issue 40): initiateDeviceAuthorization, then
 * pollDeviceAuthorizationGrant, which waits `interval` seconds before each poll (real seconds:
 * the approved flow takes about 5), and a refresh of what it got. Where the outcome is settled
 * before the first poll (denied, expired), openid-client is given interval 0 and polls at once.
 */
import * as oidc from 'openid-client';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeUser, signedInAgent, startServer, type TestServer } from '../helpers.js';
import { registerApp, type RegisteredApp } from '../oidc-flow.js';
import type { UserRecord } from '../../src/domain/users.js';
import { expectNoAxeViolations } from './axe.js';
import { hasChromium, launchChromium, signedInPage } from './chromium.js';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

let t: TestServer;
let browser: Browser;
let app: RegisteredApp;
let user: UserRecord;
let config: oidc.Configuration;
let signedIn: BrowserContext;

/**
 * What pollDeviceAuthorizationGrant throws for a device whose outcome is settled already: the
 * server's interval (5; the approved flow waits it) is replaced by 0, so the first poll goes at
 * once and ends it. Only after the outcome: the test clock stands still, so a second poll within
 * the flow would be told slow_down.
 */
function pollAtOnce(started: oidc.DeviceAuthorizationResponse): Promise<unknown> {
  expect(started.interval).toBe(5);
  return oidc.pollDeviceAuthorizationGrant(config, { ...started, interval: 0 }).then(
    () => undefined,
    (err: unknown) => err,
  );
}

describe.runIf(hasChromium)('openid-client device authorization grant, approved in Chromium', () => {
  beforeAll(async () => {
    const launched = launchChromium();
    t = await startServer();
    // discovery() requires the issuer to be the address it was asked at.
    t.config.publicUrl = t.baseUrl;
    const { agent: developer } = await signedInAgent(t);
    app = await registerApp(developer, { name: 'Couch Game', redirect_uris: ['https://couch.example/cb'], public: true, grant_types: ['authorization_code', 'refresh_token', DEVICE_GRANT] });
    user = await makeUser(t);
    config = await oidc.discovery(new URL(t.baseUrl), app.client_id, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
    browser = await launched;
    // Signed in once, before the flows: the approved flow's clicks then fit in openid-client's first interval.
    signedIn = (await signedInPage(browser, t.baseUrl, user.name)).context();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('discovery names the endpoint; the person approves on /device while openid-client polls; the tokens identify them and refresh', async () => {
    expect(config.serverMetadata().device_authorization_endpoint).toBe(`${t.baseUrl}/api/oauth/device_authorization`);
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid profile offline_access' });
    expect(started).toMatchObject({ verification_uri: `${t.baseUrl}/device`, expires_in: 600, interval: 5 });
    const polling = oidc.pollDeviceAuthorizationGrant(config, started);

    const page = await signedIn.newPage();
    await page.goto(started.verification_uri_complete!);
    expect(await page.inputValue('#user-code')).toBe(started.user_code);
    await page.click('#device-continue');
    expect(await page.textContent('#device-app-name')).toBe('Couch Game');
    expect(await page.locator('#scopes li').evaluateAll((items) => items.map((li) => li.getAttribute('data-scope')))).toEqual(['openid', 'profile', 'offline_access']);
    await expectNoAxeViolations(page, 'device page, the app to approve');
    await page.click('#device-approve');
    await page.waitForSelector('#device-result');
    await page.close();

    const tokens = await polling;
    expect(tokens.claims()).toMatchObject({ iss: t.baseUrl, sub: String(user.id), aud: app.client_id, preferred_username: user.name, amr: ['pwd'] });
    expect(tokens.refresh_token).toMatch(/^[\w-]{43}$/);
    const info = await oidc.fetchUserInfo(config, tokens.access_token, String(user.id));
    expect(info).toMatchObject({ sub: String(user.id), preferred_username: user.name });
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.claims()).toMatchObject({ sub: String(user.id) });
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
  });

  it('denied on /device: the poll ends with access_denied', async () => {
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid' });
    const page = await signedIn.newPage();
    await page.goto(`${t.baseUrl}/device`);
    await page.fill('#user-code', started.user_code.toLowerCase().replace('-', ''));
    await page.click('#device-continue');
    await page.click('#device-deny');
    await page.waitForSelector('#device-result');
    await page.close();
    const err = await pollAtOnce(started);
    expect(err).toBeInstanceOf(oidc.ResponseBodyError);
    expect(err).toMatchObject({ error: 'access_denied', error_description: 'The person denied this device', status: 400 });
  });

  it('nobody decides within 600 seconds (a moved clock): the poll ends with expired_token', async () => {
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid' });
    t.clock.advance(600_000);
    const err = await pollAtOnce(started);
    expect(err).toMatchObject({ error: 'expired_token', error_description: 'Device code has expired', status: 400 });
  });
});
