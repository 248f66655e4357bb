/**
 * Signing in through an upstream identity provider, in Chromium, with a real OpenID Provider as
 * the upstream (node-oidc-provider on its own port, its own login and consent pages: test/upstream-provider.ts).
 * Issue 41's "done when": a new person signs up through it (name chosen, address verified), signs
 * out, signs in again through it, and an app gets a code and an ID token whose amr has `fed`; an
 * account with the same address is linked only after its own sign-in (password and authenticator
 * code) and a confirmation; a cancelled or refused upstream sign-in ends on the sign-in page with
 * the reason; axe passes on each new page and state at a desktop's and a phone's width.
 */
import * as oidc from 'openid-client';
import { TOTP, URI } from 'otpauth';
import type { Browser, Page, Response as PageResponse } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_PASSWORD } from '../../src/domain/users.js';
import { addUpstream } from '../../src/upstreams/upstreams.js';
import { Agent, makeClient, makeUser, signedInAgent, startServer, TEST_PASSWORD, type TestClient, type TestServer } from '../helpers.js';
import { expectNoAxeViolations } from './axe.js';
import { hasChromium, launchChromium, startCallbackServer, type CallbackServer } from './chromium.js';
import { showUpstreamLogsOnFailure, signInAtUpstream, startUpstreamProvider, type UpstreamProvider } from '../upstream-provider.js';

const CLIENT = { client_id: 'identity-service', client_secret: 'upstream-client-secret-for-tests' };
const OAUTH2_CLIENT = { client_id: 'identity-service-oauth2', client_secret: 'another-upstream-client-secret' };
const WIDTHS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

let t: TestServer;
let op: UpstreamProvider | undefined;
let browser: Browser;
let callback: CallbackServer;
let app: TestClient;

/** axe at each width, ending at the desktop's. */
async function accessible(page: Page, label: string): Promise<void> {
  for (const size of [...WIDTHS].reverse()) {
    await page.setViewportSize(size);
    await expectNoAxeViolations(page, `${label} (${size.width} px)`);
  }
}

async function newPage(): Promise<Page> {
  const page = await (await browser.newContext({ viewport: WIDTHS[0] })).newPage();
  page.setDefaultTimeout(15_000);
  return page;
}

/** Clicks "Sign in with Test OP" on the page. */
async function startAtButton(page: Page): Promise<void> {
  await page.click('#upstream-test-op');
}

/** The answer of our callback for the navigation `act` starts (the upstream sends the browser back to it). */
async function callbackResponse(page: Page, act: () => Promise<void>): Promise<PageResponse> {
  const [response] = await Promise.all([page.waitForResponse((r) => r.url().startsWith(`${t.baseUrl}/signin/upstream/test-op/callback`)), act()]);
  return response;
}

async function signOut(page: Page): Promise<void> {
  await Promise.all([page.waitForURL(`${t.baseUrl}/`), page.click('header form[action="/signout"] button')]);
}

describe.runIf(hasChromium)('signing in through an upstream OpenID Provider, in Chromium', () => {
  showUpstreamLogsOnFailure(() => op);

  beforeAll(async () => {
    const launched = launchChromium();
    t = await startServer({}, { limits: { upstreamIp: { points: 1000, seconds: 600 }, signInIp: { points: 1000, seconds: 600 } } });
    // The callback address the upstream is given is PUBLIC_URL's; the test server's port is known only now.
    t.config.publicUrl = t.baseUrl;
    op = await startUpstreamProvider({
      clients: [
        { ...CLIENT, redirect_uris: [`${t.baseUrl}/signin/upstream/test-op/callback`] },
        // The same provider as a plain OAuth 2.0 one (its user info read through a claim mapping), which sends its secret in the body.
        { ...OAUTH2_CLIENT, redirect_uris: [`${t.baseUrl}/signin/upstream/plain-oauth/callback`], token_endpoint_auth_method: 'client_secret_post' },
      ],
      accounts: {
        newbie: { sub: 'op-newbie', email: 'Newbie@Op.Example', email_verified: true, name: 'New Bie', preferred_username: 'newbie.op', amr: ['pwd'] },
        // The address of the account 'linda_acct' (makeUser's `<name>@example.com`).
        linda: { sub: 'op-linda', email: 'linda_acct@example.com', email_verified: true, name: 'Linda', amr: ['pwd'] },
        unverified: { sub: 'op-unverified', email: 'unverified@mail.example', email_verified: false },
        // Another address than its account's: linked from the account page.
        elsewhere: { sub: 'op-elsewhere', email: 'someone-else@mail.example', email_verified: true, amr: ['pwd'] },
        // The address of the account 'target_acct'.
        target: { sub: 'op-target', email: 'target_acct@example.com', email_verified: true, amr: ['pwd'] },
        plain: { sub: 'op-plain', email: 'plain@mail.example', email_verified: true, preferred_username: 'plain-person' },
      },
    });
    await addUpstream(
      { store: t.store, now: t.clock.now, secrets: t.config.sessionSecrets },
      {
        name: 'Plain OAuth',
        source: {
          authorizationEndpoint: `${op.issuer}/auth`,
          tokenEndpoint: `${op.issuer}/token`,
          userinfoEndpoint: `${op.issuer}/me`,
          claimMapping: { subject: 'sub', name: 'preferred_username', email: 'email', emailVerified: 'email_verified' },
        },
        // The provider answers its user info only for `openid` (an OAuth 2.0 provider's own scopes, here).
        scopes: ['openid', 'email', 'profile'],
        clientId: OAUTH2_CLIENT.client_id,
        clientSecret: OAUTH2_CLIENT.client_secret,
      },
    );
    await addUpstream({ store: t.store, now: t.clock.now, secrets: t.config.sessionSecrets }, { name: 'Test OP', source: { issuer: op.issuer }, clientId: CLIENT.client_id, clientSecret: CLIENT.client_secret });
    callback = await startCallbackServer();
    const owner = await makeUser(t);
    app = await makeClient(t, owner.id, [callback.url]);
    browser = await launched;
  });
  afterAll(async () => {
    await browser?.close();
    callback?.close();
    await op?.close();
    await t?.close();
  });

  it('a new person signs up through it (name chosen, address verified), signs out, signs in again, and an app gets an ID token with amr fed', async () => {
    const taken = await makeUser(t);
    const page = await newPage();
    await page.goto(`${t.baseUrl}/signin`);
    expect(await page.locator('#upstream-sign-in button').allTextContents()).toEqual(['Sign in with Plain OAuth', 'Sign in with Test OP']);
    await accessible(page, 'sign-in page with an upstream');
    await startAtButton(page);
    await signInAtUpstream(page, 'newbie');

    // No account has the address: the public name is picked, suggested from the upstream's profile.
    expect(page.url()).toBe(`${t.baseUrl}/signup/upstream`);
    expect(await page.textContent('#upstream-provider')).toBe('Test OP');
    expect(await page.textContent('#upstream-email')).toBe('newbie@op.example');
    expect(await page.inputValue('#name')).toBe('newbie_op');
    await accessible(page, 'picking the public name');
    expect(await t.store.users.getUserByEmail('newbie@op.example')).toBeUndefined();

    await page.fill('#name', taken.name);
    const refused = await Promise.all([page.waitForResponse(`${t.baseUrl}/signup/upstream`), page.click('#upstream-signup-submit')]);
    expect(refused[0].status()).toBe(409);
    expect(await page.textContent('#error-message')).toBe('Name is already taken');
    await accessible(page, 'picking the public name, a taken name refused');

    await page.fill('#name', 'NewbieUp');
    await Promise.all([page.waitForURL(`${t.baseUrl}/account`), page.click('#upstream-signup-submit')]);
    const user = (await t.store.users.getUserByName('NewbieUp'))!;
    expect(user).toMatchObject({ email: 'newbie@op.example', passwordHash: NO_PASSWORD });
    expect(user.emailVerifiedAt).toBe(t.clock.now());
    expect((await t.store.upstreamIdentities.listUpstreamIdentities(user.id)).map((i) => [i.upstreamSlug, i.upstreamName, i.subject, i.email])).toEqual([['test-op', 'Test OP', 'op-newbie', 'newbie@op.example']]);
    // The history names the upstream.
    expect(await page.locator('#sign-ins tbody tr').first().locator('td').last().textContent()).toBe('Test OP');

    // No password: the sign-in form refuses any, as it refuses a wrong one.
    await signOut(page);
    const agent = new Agent(t);
    const withPassword = await agent.form('/signin', { name: 'NewbieUp', password: TEST_PASSWORD });
    expect(withPassword.status).toBe(401);

    // An app's sign-in: to /signin and back through the upstream (its session answers at once), then consent.
    const config = await oidc.discovery(new URL(t.baseUrl), app.clientId, app.clientSecret, undefined, { execute: [oidc.allowInsecureRequests] });
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: callback.url,
      scope: 'openid profile',
      state,
      nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    await page.goto(url.href);
    expect(new URL(page.url()).pathname).toBe('/signin');
    await Promise.all([page.waitForSelector('#app-name'), page.click('#upstream-test-op')]);
    expect(await page.textContent('#app-name')).toBe('Test App');
    await Promise.all([page.waitForURL(`${callback.url}?**`), page.click('#authorize')]);
    const tokens = await oidc.authorizationCodeGrant(config, new URL(page.url()), { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce });
    expect(tokens.claims()).toMatchObject({ iss: t.baseUrl, sub: String(user.id), aud: app.clientId, amr: ['fed', 'pwd'], acr: '1', preferred_username: 'NewbieUp' });
    await page.context().close();
  });

  it('an account with the same address is linked only after its own sign-in (password, authenticator code) and a confirmation', async () => {
    const { agent, user } = await signedInAgent(t, 'linda_acct');
    const setup = await agent.json('POST', '/api/account/totp', { password: TEST_PASSWORD });
    const totp = URI.parse(((await setup.json()) as { uri: string }).uri) as TOTP;
    expect((await agent.json('POST', '/api/account/totp/confirm', { code: totp.generate({ timestamp: t.clock.now() }) })).status).toBe(200);
    t.clock.advance(30_000);

    const page = await newPage();
    await page.goto(`${t.baseUrl}/signin`);
    await startAtButton(page);
    await signInAtUpstream(page, 'linda');
    expect(page.url()).toBe(`${t.baseUrl}/signin/link`);
    expect(await page.textContent('#upstream-email')).toBe('linda_acct@example.com');
    expect(await page.isVisible('#upstream-link-form')).toBe(false);
    await accessible(page, 'linking: sign in to the account first');
    // Nothing is linked yet.
    expect(await t.store.upstreamIdentities.listUpstreamIdentities(user.id)).toEqual([]);

    await page.click('#upstream-link-signin');
    await page.fill('input[name=name]', user.name);
    await page.fill('input[name=password]', TEST_PASSWORD);
    await Promise.all([page.waitForURL(`${t.baseUrl}/signin/otp`), page.click('form[action="/signin"] button[type=submit]')]);
    await page.fill('input[name=otp]', totp.generate({ timestamp: t.clock.now() }));
    await Promise.all([page.waitForURL(`${t.baseUrl}/signin/link`), page.click('form[action="/signin/otp"] button[type=submit]')]);
    expect(await page.textContent('#upstream-provider')).toBe('Test OP');
    await accessible(page, 'linking: confirm');
    expect(await t.store.upstreamIdentities.listUpstreamIdentities(user.id)).toEqual([]);
    await Promise.all([page.waitForURL(`${t.baseUrl}/account`), page.click('#upstream-link-confirm')]);
    expect((await t.store.upstreamIdentities.listUpstreamIdentities(user.id)).map((i) => [i.subject, i.email])).toEqual([['op-linda', 'linda_acct@example.com']]);

    // Signing in through it again: the account's authenticator app is still asked (the upstream asserted no mfa).
    await signOut(page);
    t.clock.advance(30_000);
    await page.goto(`${t.baseUrl}/signin`);
    await Promise.all([page.waitForURL(`${t.baseUrl}/signin/otp`), startAtButton(page)]);
    await page.fill('input[name=otp]', totp.generate({ timestamp: t.clock.now() }));
    await Promise.all([page.waitForURL(`${t.baseUrl}/account`), page.click('form[action="/signin/otp"] button[type=submit]')]);
    await page.context().close();
  });

  it('a cancelled upstream sign-in, and an address the upstream does not say is verified, end on the sign-in page with the reason', async () => {
    const page = await newPage();
    await page.goto(`${t.baseUrl}/signin?return_to=%2Fgames`);
    const cancelled = await callbackResponse(page, async () => {
      await startAtButton(page);
      await signInAtUpstream(page, 'newbie', { consent: 'cancel' });
    });
    expect(cancelled.status()).toBe(400);
    expect(await page.textContent('#error-message')).toBe('You cancelled signing in with Test OP');
    // The way back: the form and the buttons, still on the way to return_to.
    expect(await page.inputValue('form[action="/signin/upstream/test-op"] input[name=return_to]')).toBe('/games');
    await accessible(page, 'sign-in page after a cancelled upstream sign-in');
    await page.context().close();

    const other = await newPage();
    await other.goto(`${t.baseUrl}/signin`);
    const refused = await callbackResponse(other, async () => {
      await startAtButton(other);
      await signInAtUpstream(other, 'unverified');
    });
    expect(refused.status()).toBe(403);
    expect(await other.textContent('#error-message')).toBe('Test OP does not say that unverified@mail.example is verified: verify it there, or sign up with a password');
    expect(await t.store.users.getUserByEmail('unverified@mail.example')).toBeUndefined();
    await other.context().close();
  });

  it('a plain OAuth 2.0 upstream: the identity is read from its user info through the claim mapping', async () => {
    const page = await newPage();
    await page.goto(`${t.baseUrl}/signup`);
    await page.click('#upstream-plain-oauth');
    await signInAtUpstream(page, 'plain');
    expect(page.url()).toBe(`${t.baseUrl}/signup/upstream`);
    expect(await page.textContent('#upstream-provider')).toBe('Plain OAuth');
    expect(await page.textContent('#upstream-email')).toBe('plain@mail.example');
    expect(await page.inputValue('#name')).toBe('plain-person');
    await Promise.all([page.waitForURL(`${t.baseUrl}/account`), page.click('#upstream-signup-submit')]);
    const user = (await t.store.users.getUserByName('plain-person'))!;
    expect(user.email).toBe('plain@mail.example');
    expect((await t.store.upstreamIdentities.listUpstreamIdentities(user.id)).map((i) => [i.upstreamSlug, i.subject])).toEqual([['plain-oauth', 'op-plain']]);
    await page.context().close();
  });

  it("another account's session cannot take a pending link, even by posting the confirmation itself", async () => {
    const target = await makeUser(t, 'target_acct');
    const other = await makeUser(t);
    const page = await newPage();
    await page.goto(`${t.baseUrl}/signin`);
    await page.fill('input[name=name]', other.name);
    await page.fill('input[name=password]', TEST_PASSWORD);
    await Promise.all([page.waitForURL(`${t.baseUrl}/account`), page.click('form[action="/signin"] button[type=submit]')]);
    // Signed in as `other`, through the upstream with the identity whose address is `target`'s.
    await page.goto(`${t.baseUrl}/signin?prompt=login`);
    await startAtButton(page);
    await signInAtUpstream(page, 'target');
    expect(page.url()).toBe(`${t.baseUrl}/signin/link`);
    expect(await page.isVisible('#upstream-link-form')).toBe(false);
    expect(await page.isVisible('#upstream-link-signin')).toBe(true);
    await accessible(page, 'linking: signed in to another account');
    // The confirmation, posted by hand with this session's CSRF token.
    const answer = await page.evaluate(async () => {
      const csrf = document.querySelector<HTMLMetaElement>('meta[name=csrf-token]')!.content;
      const res = await fetch('/signin/link', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ _csrf: csrf, decision: 'link' }), redirect: 'manual' });
      return { status: res.status, text: await res.text() };
    });
    expect(answer.status).toBe(401);
    expect(answer.text).toContain('<p class="error" id="error-message" role="alert">Sign in to the account with this address first</p>');
    expect(await t.store.upstreamIdentities.listUpstreamIdentities(target.id)).toEqual([]);
    expect(await t.store.upstreamIdentities.listUpstreamIdentities(other.id)).toEqual([]);
    await page.context().close();
  });

  it('the account page links another identity after the password (any address), and signing in through it then signs in to that account', async () => {
    const user = await makeUser(t);
    const page = await newPage();
    await page.goto(`${t.baseUrl}/signin`);
    await page.fill('input[name=name]', user.name);
    await page.fill('input[name=password]', TEST_PASSWORD);
    await Promise.all([page.waitForURL(`${t.baseUrl}/account`), page.click('form[action="/signin"] button[type=submit]')]);
    const form = page.locator('form[data-upstream="test-op"]');
    await form.locator('input[name=password]').fill(TEST_PASSWORD);
    await form.locator('#link-upstream-test-op').click();
    await signInAtUpstream(page, 'elsewhere');
    expect(page.url()).toBe(`${t.baseUrl}/account`);
    expect((await t.store.upstreamIdentities.listUpstreamIdentities(user.id)).map((i) => [i.subject, i.email])).toEqual([['op-elsewhere', 'someone-else@mail.example']]);

    await signOut(page);
    await page.goto(`${t.baseUrl}/signin`);
    await Promise.all([page.waitForURL(`${t.baseUrl}/account`), startAtButton(page)]);
    expect(await page.textContent('header .who strong')).toBe(user.name);
    await page.context().close();
  });
});
