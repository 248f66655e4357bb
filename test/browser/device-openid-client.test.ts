/**
 * openid-client v6's device authorization grant (RFC 8628) against the real server, while a person
 * approves or denies in Chromium on /device (issue 40): initiateDeviceAuthorization, then
 * pollDeviceAuthorizationGrant, which waits `interval` seconds between polls (real seconds: this
 * suite takes about 5 seconds per flow), and a refresh of what it got.
 */
import * as oidc from 'openid-client';
import type { Browser } from 'playwright-core';
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

describe.runIf(hasChromium)('openid-client device authorization grant, approved in Chromium', () => {
  beforeAll(async () => {
    t = await startServer();
    // discovery() requires the issuer to be the address it was asked at.
    t.config.publicUrl = t.baseUrl;
    const { agent: developer } = await signedInAgent(t);
    app = await registerApp(developer, { name: 'Couch Game', redirect_uris: ['https://couch.example/cb'], public: true, grant_types: ['authorization_code', 'refresh_token', DEVICE_GRANT] });
    user = await makeUser(t);
    config = await oidc.discovery(new URL(t.baseUrl), app.client_id, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
    browser = await launchChromium();
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

    const page = await signedInPage(browser, t.baseUrl, user.name);
    await page.goto(started.verification_uri_complete!);
    expect(await page.inputValue('#user-code')).toBe(started.user_code);
    await page.click('#device-continue');
    expect(await page.textContent('#device-app-name')).toBe('Couch Game');
    expect(await page.locator('#scopes li').evaluateAll((items) => items.map((li) => li.getAttribute('data-scope')))).toEqual(['openid', 'profile', 'offline_access']);
    await expectNoAxeViolations(page, 'device page, the app to approve');
    await page.click('#device-approve');
    await page.waitForSelector('#device-result');
    await page.context().close();

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
    const polling = oidc.pollDeviceAuthorizationGrant(config, started).then(
      () => undefined,
      (err: unknown) => err,
    );
    const page = await signedInPage(browser, t.baseUrl, user.name);
    await page.goto(`${t.baseUrl}/device`);
    await page.fill('#user-code', started.user_code.toLowerCase().replace('-', ''));
    await page.click('#device-continue');
    await page.click('#device-deny');
    await page.waitForSelector('#device-result');
    await page.context().close();
    const err = await polling;
    expect(err).toBeInstanceOf(oidc.ResponseBodyError);
    expect(err).toMatchObject({ error: 'access_denied', error_description: 'The person denied this device', status: 400 });
  });

  it('nobody decides within 600 seconds (a moved clock): the poll ends with expired_token', async () => {
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid' });
    t.clock.advance(600_000);
    const err = await oidc.pollDeviceAuthorizationGrant(config, started).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ error: 'expired_token', error_description: 'Device code has expired', status: 400 });
  });
});
