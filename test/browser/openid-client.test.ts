/**
 * openid-client (v6, on oauth4webapi) end to end, as a third-party app would use it: discovery of
 * the RFC 8414 metadata, an authorization URL with PKCE and state, the consent clicked in Chromium,
 * the code grant (which checks `iss`, RFC 9207), whois, then introspection and revocation.
 * The app registers a loopback redirect URI without a port and listens on an ephemeral one
 * (RFC 8252 7.3), as a desktop game would.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oidc from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClient, makeUser, startServer, TEST_PASSWORD, type TestClient, type TestServer } from '../helpers.js';
import type { UserRecord } from '../../src/domain/users.js';
import { hasChromium, launchChromium } from './chromium.js';

let t: TestServer;
let browser: Browser;
let page: Page;
let callback: http.Server;
let redirectUri: string;
let app: TestClient;
let user: UserRecord;
let config: oidc.Configuration;

describe.skipIf(!hasChromium)('openid-client against the service', () => {
  beforeAll(async () => {
    t = await startServer();
    // discovery() requires the issuer to be the address it was asked at; the test server's port is
    // known only once it listens, so PUBLIC_URL is set to it now (handlers read the config per request).
    t.config.publicUrl = t.baseUrl;
    user = await makeUser(t);
    app = await makeClient(t, user.id, ['http://127.0.0.1/callback']);
    callback = http.createServer((_req, res) => {
      res.setHeader('Content-Type', 'text/html');
      res.end('<!doctype html><title>app callback</title><h1>app callback</h1>');
    });
    await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
    redirectUri = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
    browser = await launchChromium();
    page = await (await browser.newContext()).newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${t.baseUrl}/signin`);
    await page.fill('input[name=name]', user.name);
    await page.fill('input[name=password]', TEST_PASSWORD);
    await Promise.all([page.waitForURL(`${t.baseUrl}/account`), page.click('button[type=submit]')]);
  });
  afterAll(async () => {
    await browser?.close();
    callback?.close();
    await t?.close();
  });

  it('discovery() reads /.well-known/oauth-authorization-server', async () => {
    config = await oidc.discovery(new URL(t.baseUrl), app.clientId, app.clientSecret, undefined, {
      execute: [oidc.allowInsecureRequests],
      algorithm: 'oauth2',
    });
    const metadata = config.serverMetadata();
    expect(metadata.issuer).toBe(t.baseUrl);
    expect(metadata.token_endpoint).toBe(`${t.baseUrl}/api/oauth/token`);
    expect(metadata.authorization_response_iss_parameter_supported).toBe(true);
    expect(metadata.supportsPKCE()).toBe(true);
  });

  async function consent(scope: string): Promise<{ callbackUrl: URL; verifier: string; state: string }> {
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      // The second consent is for an app already granted: ask for the page anyway (remembered
      // consent would answer without one).
      prompt: 'consent',
    });
    expect(url.origin + url.pathname).toBe(`${t.baseUrl}/oauth`);
    await page.goto(url.href);
    expect(await page.textContent('#app-name')).toBe('Test App');
    await Promise.all([page.waitForURL(`${redirectUri}?**`), page.click('#authorize')]);
    return { callbackUrl: new URL(page.url()), verifier, state };
  }

  it('buildAuthorizationUrl with PKCE and state, consent in Chromium, authorizationCodeGrant (checks iss), whois', async () => {
    const { callbackUrl, verifier, state } = await consent('userinfo email');
    expect(callbackUrl.searchParams.get('iss')).toBe(t.baseUrl);
    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: verifier, expectedState: state });
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(600);
    const whois = await oidc.fetchProtectedResource(config, tokens.access_token, new URL(config.serverMetadata().userinfo_endpoint!), 'GET');
    expect(whois.status).toBe(200);
    expect(await whois.json()).toEqual({ id: user.id, name: user.name, email: user.email });

    const live = await oidc.tokenIntrospection(config, tokens.access_token);
    expect(live).toMatchObject({ active: true, client_id: app.clientId, sub: String(user.id), username: user.name, scope: 'userinfo email' });
    await oidc.tokenRevocation(config, tokens.access_token);
    expect(await oidc.tokenIntrospection(config, tokens.access_token)).toEqual({ active: false });
  });

  it('the library refuses a callback without iss or with another issuer (mix-up detection needs it)', async () => {
    const { callbackUrl, verifier, state } = await consent('userinfo');
    for (const iss of [undefined, 'https://other-idp.example']) {
      const tampered = new URL(callbackUrl);
      if (iss === undefined) tampered.searchParams.delete('iss');
      else tampered.searchParams.set('iss', iss);
      const err = (await oidc
        .authorizationCodeGrant(config, tampered, { pkceCodeVerifier: verifier, expectedState: state })
        .catch((e: unknown) => e)) as Error & { cause?: Error };
      expect(err).toBeInstanceOf(Error);
      expect(err.cause?.message).toMatch(iss === undefined ? /"iss" \(issuer\) missing/ : /unexpected "iss" \(issuer\) response parameter value/);
    }
    // The untampered answer still redeems: the refusals above never reached the token endpoint.
    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: verifier, expectedState: state });
    expect(tokens.access_token).toMatch(/^[\w-]{43}$/);
  });
});
