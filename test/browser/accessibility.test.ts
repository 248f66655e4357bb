/**
 * Every page a person reaches, signed out and signed in, checked by axe-core (test/browser/axe.ts:
 * WCAG 2.0/2.1/2.2 A and AA) at a desktop (1280x800) and a phone (390x844) width, and a few in
 * the dark scheme, with a screenshot of each in test-artifacts/screenshots/ (a11y-<width>-<page>.png).
 * The two widths run side by side, each with users of its own, on one server and one browser.
 * A page state whose markup another one checked has too (a form before and after its error, a
 * moderation queue without and with a user opened) is checked once, in its fuller state.
 * Not /docs: the third-party reference renderer (Redoc) has violations of its own (contrast of
 * inline code, an unnamed select, scrollable regions without keyboard access, target size).
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveStaticGame } from '../../scripts/serve-static-game.js';
import { registerGame } from '../../src/games/games.js';
import { registerOAuthApp } from '../../src/oauth/clients.js';
import { hashSecret } from '../../src/security/secrets.js';
import type { EmailLinkPurpose } from '../../src/domain/email-links.js';
import type { UserRecord } from '../../src/domain/users.js';
import { makeClient, makeEmailLink, makeUser, startServer, type TestClient, type TestServer, TEST_PASSWORD } from '../helpers.js';
import { expectNoAxeViolations } from './axe.js';
import { hasChromium, launchChromium, SCREENSHOTS_DIR, startCallbackServer, type CallbackServer } from './chromium.js';
import { NOTHING } from '../../src/domain/security-events.js';

let t: TestServer;
let browser: Browser;
let client: TestClient;
let gameServer: http.Server;
let staticGame: Awaited<ReturnType<typeof serveStaticGame>>;
let staticGameUrl: string;
let gameId: number;
let callback: CallbackServer;

const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;
type Viewport = (typeof VIEWPORTS)[number];

/** Checks the page as it is now with axe, and keeps a screenshot. */
async function checkHere(page: Page, viewport: string, label: string): Promise<void> {
  await page.screenshot({ path: path.join(SCREENSHOTS_DIR, `a11y-${viewport}-${label}.png`), fullPage: true });
  await expectNoAxeViolations(page, `${label} (${viewport})`);
}

/** Opens `path`, checks it with axe and keeps a screenshot; `ready` waits for what the page's script fills in. */
async function check(page: Page, viewport: string, label: string, path_: string, ready?: string): Promise<void> {
  await page.goto(`${t.baseUrl}${path_}`);
  if (ready) await page.waitForSelector(ready);
  await checkHere(page, viewport, label);
}

/** Submits the page's form with `button` and waits for the page its answer is (same address or not). */
async function submit(page: Page, button: string, formPath: string): Promise<void> {
  await Promise.all([
    page.waitForResponse((r) => new URL(r.url()).pathname === formPath && r.request().method() === 'POST'),
    page.click(button),
  ]);
  await page.waitForLoadState('load');
}

async function signIn(page: Page, who: UserRecord): Promise<void> {
  await page.goto(`${t.baseUrl}/signin`);
  await page.fill('input[name=name]', who.name);
  await page.fill('input[name=password]', TEST_PASSWORD);
  await Promise.all([page.waitForURL(`${t.baseUrl}/account`), page.click('main button[type=submit]')]);
}

/** An email link's token, stored as the service stores the ones it mails. */
function emailLink(who: UserRecord, purpose: EmailLinkPurpose, email: string | null): Promise<string> {
  return makeEmailLink(t, who.id, purpose, email);
}

async function newPage(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  return page;
}

/** Signed out: every page, its error states, the email links, the second sign-in step, the example games. */
async function signedOut(viewport: Viewport): Promise<void> {
  const context = await browser.newContext({ viewport });
  const page = await newPage(context);
  const other = await makeUser(t);
  await t.store.users.updateUser(other.id, { bio: 'Plays every night.\nLikes puzzles.', flairs: ['none', 'gold'], equippedFlair: 'gold', playMinutes: 75 });
  await check(page, viewport.name, 'home', '/');
  // The sign-in page as it is first shown has the same markup as with its error, checked below.
  await page.goto(`${t.baseUrl}/signin`);
  await page.fill('input[name=name]', other.name);
  await page.fill('input[name=password]', 'not-the-password');
  await submit(page, 'main button[type=submit]', '/signin');
  expect(await page.textContent('#error-message')).not.toBe('');
  await checkHere(page, viewport.name, 'signin-error');
  await check(page, viewport.name, 'signup', '/signup');
  await page.fill('input[name=name]', `newcomer_${viewport.name}`);
  await page.fill('input[name=email]', `newcomer-${viewport.name}@example.com`);
  await page.fill('input[name=password]', 'a new password 1');
  await submit(page, 'main button[type=submit]', '/signup');
  expect(await page.textContent('#sign-up-sent')).toBe(`We sent a mail to newcomer-${viewport.name}@example.com. Follow its link to confirm the address.`);
  await checkHere(page, viewport.name, 'signup-sent');
  await check(page, viewport.name, 'forgot-password', '/forgot-password');
  await page.fill('input[name=login]', other.name);
  await submit(page, 'main button[type=submit]', '/forgot-password');
  expect(await page.textContent('h1')).toBe('Check your mail');
  await checkHere(page, viewport.name, 'forgot-password-sent');
  await check(page, viewport.name, 'games', '/games', '#games');
  await check(page, viewport.name, 'profile', `/users/${other.id}`, '#report-signin');
  await check(page, viewport.name, 'play-signed-out', `/play/${gameId}`, '#game');
  await check(page, viewport.name, 'error', '/oauth?response_type=code&client_id=nobody&redirect_uri=https%3A%2F%2Fx.example%2F&scope=userinfo');
  await check(page, viewport.name, 'signed-out', '/oauth/logout', '#notice');
  // An app's sign-out link without an ID token hint: the signed-out page with a button on to the app.
  const { app: leaving } = await registerOAuthApp(
    { store: t.store, now: t.clock.now },
    { ownerId: other.id, name: 'Leaving App', redirectUris: [callback.url], postLogoutRedirectUris: [callback.url] },
  );
  const leave = new URLSearchParams({ client_id: leaving.clientId, post_logout_redirect_uri: callback.url, state: 'bye' });
  await check(page, viewport.name, 'signed-out-continue', `/oauth/logout?${leave}`, '#continue');
  await Promise.all([page.waitForURL(`${callback.url}?state=bye`), page.click('#continue')]);
  const res = await page.goto(`${t.baseUrl}/nope`);
  expect(res?.status()).toBe(404);
  expect(await page.textContent('h1')).toBe('Page not found');
  expect(await page.getAttribute('main a', 'href')).toBe('/');
  await check(page, viewport.name, 'not-found', '/nope');

  // Email links: a reset link that works, then one that does not; a verification link, opened twice; a bad one.
  const resetting = await makeUser(t);
  await check(page, viewport.name, 'reset-password', `/reset-password?token=${await emailLink(resetting, 'reset', null)}`, '#reset-name');
  await page.fill('input[name=password]', 'a new password 1');
  await submit(page, 'main button[type=submit]', '/reset-password');
  expect(await page.textContent('h1')).toBe('Password changed');
  await checkHere(page, viewport.name, 'password-changed');
  await check(page, viewport.name, 'link-error', `/reset-password?token=${'A'.repeat(43)}`, '#forward');
  const unverified = await makeUser(t, undefined, { verified: false });
  const verify = await emailLink(unverified, 'verify', unverified.email);
  // Outside its account's session it asks for that sign-in; in it, it verifies.
  await check(page, viewport.name, 'verify-email-sign-in', `/verify-email?token=${verify}`, '#forward');
  await signIn(page, unverified);
  await check(page, viewport.name, 'verify-email', `/verify-email?token=${verify}`, '#email');
  expect(await page.textContent('h1')).toBe('Address verified');
  await page.context().clearCookies();
  // Opened again, or a bad one: the same two pages with other words (test/browser/email-flows.test.ts).

  // The second step of sign-in, for an account with an authenticator app, with a wrong code.
  const withApp = await makeUser(t);
  expect(await t.store.authenticatorApp.savePendingTotp(withApp.id, 'sealed-seed', t.clock.now())).toBe(true);
  expect(await t.store.authenticatorApp.confirmTotp(withApp.id, 'sealed-seed', 1, t.clock.now(), [hashSecret('abcdefghjk')], NOTHING)).not.toBeUndefined();
  await page.goto(`${t.baseUrl}/signin`);
  await page.fill('input[name=name]', withApp.name);
  await page.fill('input[name=password]', TEST_PASSWORD);
  await Promise.all([page.waitForURL(`${t.baseUrl}/signin/otp`), page.click('main button[type=submit]')]);
  await page.fill('#otp', 'zzzzz-zzzzz');
  await submit(page, 'main button[type=submit]', '/signin/otp');
  expect(await page.textContent('#error-message')).toBe('That code is not right, or it was used already');
  await checkHere(page, viewport.name, 'signin-otp-error');

  // The static example game on its own (it is a page people open to try the service).
  await page.goto(staticGameUrl);
  await page.waitForSelector('#sign-in');
  await checkHere(page, viewport.name, 'static-game');
  await context.close();
}

/** Signed in: every page, the dialogs and the states the scripts show (a new secret, the QR code, a user opened). */
async function signedIn(viewport: Viewport): Promise<void> {
  const context = await browser.newContext({ viewport });
  const page = await newPage(context);
  // A moderator (level 2, so every moderation control shows), with a report waiting on another user.
  const user = await makeUser(t);
  await t.store.users.updateUser(user.id, { modLevel: 2 });
  const other = await makeUser(t);
  await t.store.users.updateUser(other.id, { bio: 'Buy gold at example.com', flairs: ['none', 'gold'], equippedFlair: 'gold' });
  const reporter = await makeUser(t);
  await t.store.moderation.createReport({ reporterId: reporter.id, targetId: other.id, reason: 'spam', text: 'Advertises in every game.', createdAt: t.clock.now() });
  await signIn(page, user);
  await check(page, viewport.name, 'home-signed-in', '/');
  await check(page, viewport.name, 'account', '/account', '#sessions li.session');
  // The authenticator app's setup, with its QR code shown.
  await page.fill('#totp-start-password', TEST_PASSWORD);
  await page.click('#totp-start');
  await page.waitForFunction(() => (document.getElementById('totp-qr') as HTMLImageElement).naturalWidth > 0);
  await checkHere(page, viewport.name, 'account-totp-setup');
  await check(page, viewport.name, 'apps', '/apps', '#apps');
  await page.fill('#app-name', 'A New App');
  await page.fill('#redirect-uris', 'https://new.example/callback');
  await page.click('#register');
  await page.waitForSelector('#new-secret:not([hidden])');
  await page.waitForSelector('section.app h3:text-is("A New App")');
  await checkHere(page, viewport.name, 'apps-secret');
  await check(page, viewport.name, 'games-signed-in', '/games', '#game-form');
  await check(page, viewport.name, 'profile-report', `/users/${other.id}`, '#report-form');
  // The queue, and the user opened beside it.
  await page.goto(`${t.baseUrl}/moderation?user=${other.id}`);
  await page.waitForSelector(`#report-queue .queue-entry[data-user-id="${other.id}"]`);
  await page.waitForSelector('#suspend');
  await checkHere(page, viewport.name, 'moderation-user');
  const consent = new URLSearchParams({ response_type: 'code', client_id: client.clientId, redirect_uri: client.redirectUri, scope: 'userinfo email', state: 's' });
  await check(page, viewport.name, 'consent', `/oauth?${consent}`, '#authorize');
  await check(page, viewport.name, 'logout-confirm', `/oauth/logout?client_id=${client.clientId}`, '#stay');
  await submit(page, '#stay', '/oauth/logout/confirm');
  expect(await page.textContent('h1')).toBe('You are still signed in');
  await check(page, viewport.name, 'email-changed', `/verify-email?token=${await emailLink(user, 'change', `new_${user.id}@example.com`)}`, '#email');
  // The play page with the game's consent dialog open; the game in its frame too.
  await page.goto(`${t.baseUrl}/play/${gameId}`);
  await page.frameLocator('#game').locator('#authorize').click();
  await page.waitForSelector('#consent[open]');
  await checkHere(page, viewport.name, 'play-consent');
  await expectNoAxeViolations(page.frame({ url: /^http:\/\/127\.0\.0\.1:\d+\/\?service=/ })!, `the example game in its frame (${viewport.name})`);
  await context.close();
}

/** The dark scheme: the home page, the account page, the consent page with Authorize disabled, the game-flow dialog. */
async function darkScheme(viewport: Viewport): Promise<void> {
  const context = await browser.newContext({ viewport, colorScheme: 'dark' });
  const page = await newPage(context);
  await check(page, viewport.name, 'dark-home', '/');
  const user = await makeUser(t, undefined, { verified: false });
  await t.store.users.updateUser(user.id, { flairs: ['none', 'gold'], equippedFlair: 'gold' });
  await signIn(page, user);
  await check(page, viewport.name, 'dark-account', '/account', '#sessions li.session');
  const consent = new URLSearchParams({ response_type: 'code', client_id: client.clientId, redirect_uri: client.redirectUri, scope: 'userinfo email', state: 's' });
  await check(page, viewport.name, 'dark-consent-disabled', `/oauth?${consent}`, '#authorize:disabled');
  await page.goto(`${t.baseUrl}/play/${gameId}`);
  await page.frameLocator('#game').locator('#authorize').click();
  await page.waitForSelector('#consent[open]');
  await checkHere(page, viewport.name, 'dark-play-consent');
  await context.close();
}

/** What has the keyboard focus: in the page, or in a frame of it (the example game's). */
interface Focused {
  /** `tag#id`, `tag[name=..]` or `tag "text"`; `iframe > ...` inside the game's frame. */
  what: string;
  /** Inside the open consent dialog. */
  inDialog: boolean;
  /** A visible focus indicator: :focus-visible matches and an outline or box-shadow shows. */
  visible: boolean;
}

function describeFocus(): { what: string; inDialog: boolean; visible: boolean } {
  const el = document.activeElement;
  if (!el || el === document.body) return { what: 'body', inDialog: false, visible: false };
  const text = (el.textContent ?? '').trim().replace(/\s+/g, ' ');
  const what = el.id ? `${el.localName}#${el.id}` : el.getAttribute('name') ? `${el.localName}[name=${el.getAttribute('name')}]` : `${el.localName} "${text}"`;
  const style = getComputedStyle(el);
  const outline = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0;
  return { what, inDialog: el.closest('dialog[open]') !== null, visible: el.matches(':focus-visible') && (outline || style.boxShadow !== 'none') };
}

async function focused(page: Page): Promise<Focused> {
  // Tab into the game's frame (another process) passes through the page's body for a moment: on
  // a loaded machine that moment can outlast the key press. Wait for the focus to settle (5 s at most).
  await page.waitForFunction(() => document.activeElement !== document.body, undefined, { timeout: 5000 }).catch(() => undefined);
  const top = await page.evaluate(describeFocus);
  if (top.what !== 'iframe#game') return top;
  const frame = page.frame({ url: /^http:\/\/127\.0\.0\.1:\d+\/\?service=/ })!;
  // The game's frame is another origin (another process): the focus lands inside it a moment after
  // the frame element took it, the frame's body holding it meanwhile. Wait for it to land (5 s at most).
  await frame.waitForFunction(() => document.activeElement !== document.body, undefined, { timeout: 5000 }).catch(() => undefined);
  const inner = await frame.evaluate(describeFocus);
  return { ...inner, what: `iframe > ${inner.what}` };
}

/** Presses Tab until `what` has the focus (at most `max` times); the focus stops seen on the way. */
async function tabTo(page: Page, what: string, max = 20): Promise<Focused[]> {
  const seen: Focused[] = [];
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const now = await focused(page);
    seen.push(now);
    if (now.what === what) return seen;
  }
  throw new Error(`Tab never reached ${what}: ${seen.map((f) => f.what).join(', ')}`);
}

/** Runs `phase` at each width at once (each in a browser context of its own); fails with the first failure, once both ended. */
async function bothWidths(phase: (viewport: Viewport) => Promise<void>): Promise<void> {
  const results = await Promise.allSettled(VIEWPORTS.map(phase));
  for (const r of results) if (r.status === 'rejected') throw r.reason;
}

describe.skipIf(!hasChromium)('accessibility (axe-core, WCAG 2.2 A and AA)', () => {
  beforeAll(async () => {
    t = await startServer({}, { limits: { signInIp: { points: 1000, seconds: 600 } } });
    const author = await makeUser(t);
    client = await makeClient(t, author.id);
    // The example game, on an origin of its own, for the play page and its consent dialog.
    const gamePage = fs.readFileSync(path.resolve(import.meta.dirname, '../../examples/game/index.html'));
    gameServer = http.createServer((_req, res) => res.setHeader('Content-Type', 'text/html').end(gamePage));
    await new Promise<void>((resolve) => gameServer.listen(0, '127.0.0.1', resolve));
    const gameOrigin = `http://127.0.0.1:${(gameServer.address() as AddressInfo).port}`;
    const game = await registerGame(
      { store: t.store, now: t.clock.now },
      { authorId: author.id, title: 'Some Game', url: `${gameOrigin}/?service=${encodeURIComponent(t.baseUrl)}&client_id=${client.clientId}&exchange=off` },
    );
    gameId = game.id;
    // The static example game (examples/static-game/), served as files on an origin of its own.
    staticGame = await serveStaticGame(0);
    const { app } = await registerOAuthApp({ store: t.store, now: t.clock.now }, { ownerId: author.id, name: 'Static Game App', redirectUris: [staticGame.url], public: true });
    staticGameUrl = `${staticGame.url}?service=${encodeURIComponent(t.baseUrl)}&client_id=${app.clientId}`;
    callback = await startCallbackServer();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    gameServer?.close();
    await staticGame?.close();
    callback?.close();
    await t?.close();
  });

  it('the harness reports what axe finds: id, impact and the element', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.setContent('<!doctype html><html lang="en"><title>t</title><main><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="></main></html>');
    await expect(expectNoAxeViolations(page, 'sample')).rejects.toThrow('sample: image-alt (critical): Images must have alternative text\n    img');
    await context.close();
  });

  it('keyboard only: sign in, authorize an app, and the game flow dialog (focus visible and in order; the dialog traps and returns focus)', async () => {
    const user = await makeUser(t);
    const app = await makeClient(t, user.id, [callback.url]);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await newPage(context);
    const press = async (key: string) => {
      await page.keyboard.press(key);
      return focused(page);
    };

    // An app's sign-in link, signed out: the sign-in page, every stop in reading order, each with its focus ring.
    const consent = new URLSearchParams({ response_type: 'code', client_id: app.clientId, redirect_uri: callback.url, scope: 'userinfo', state: 'kb' });
    await page.goto(`${t.baseUrl}/oauth?${consent}`);
    await page.waitForURL(`${t.baseUrl}/signin?**`);
    const header = ['a "Identity"', 'a "Games"', 'a "Apps"', 'a "Account"'];
    const signInStops: Focused[] = [];
    for (let i = 0; i < 12; i++) signInStops.push(await press('Tab'));
    expect(signInStops.map((f) => f.what)).toEqual([
      ...header, 'a "Sign in"', 'a "Sign up"',
      'input[name=name]', 'input[name=password]', 'button "Sign in"', 'button#passkey-signin', 'a#forgot-password', 'a "Sign up"',
    ]);
    expect(signInStops.filter((f) => !f.visible)).toEqual([]);
    for (let i = 0; i < 5; i++) await press('Shift+Tab');
    expect(await focused(page)).toEqual({ what: 'input[name=name]', inDialog: false, visible: true });
    await page.keyboard.type(user.name);
    await press('Tab');
    await page.keyboard.type(TEST_PASSWORD);
    await Promise.all([page.waitForURL(`${t.baseUrl}/oauth?**`), page.keyboard.press('Enter')]);

    // The consent page: "Not you?" and Authorize after the header, Cancel after it; Shift+Tab goes back, Space authorizes.
    const consentStops = await tabTo(page, 'button#authorize');
    expect(consentStops.map((f) => f.what)).toEqual([...header, 'button "Sign out"', 'button#not-you', 'button#authorize']);
    expect(consentStops.filter((f) => !f.visible)).toEqual([]);
    expect(await press('Tab')).toEqual({ what: 'button#cancel', inDialog: false, visible: true });
    expect(await press('Shift+Tab')).toEqual({ what: 'button#authorize', inDialog: false, visible: true });
    await Promise.all([page.waitForURL(`${callback.url}?**`), page.keyboard.press('Space')]);
    const back = new URL(page.url()).searchParams;
    expect([back.get('state'), back.get('code')?.length]).toEqual(['kb', 43]);

    // The game flow: Tab into the game's frame, ask to sign in; the dialog takes the focus and keeps it.
    const gameFrame = () => page.frame({ url: /^http:\/\/127\.0\.0\.1:\d+\/\?service=/ })!;
    const answers = () => gameFrame().evaluate(() => (window as unknown as { received: { type: string; error: boolean; message?: string; code?: string }[] }).received);
    for (const decision of ['Escape', 'Enter'] as const) {
      await page.goto(`${t.baseUrl}/play/${gameId}`);
      await gameFrame().waitForSelector('#authorize');
      const playStops = await tabTo(page, 'iframe > button#authorize');
      expect(playStops.map((f) => f.what)).toEqual([...header, 'button "Sign out"', 'iframe > input#client-id', 'iframe > button#info', 'iframe > button#authorize']);
      expect(playStops.filter((f) => !f.visible)).toEqual([]);
      await page.keyboard.press('Enter');
      await page.waitForSelector('#consent[open]');
      expect(await focused(page)).toEqual({ what: 'button#consent-authorize', inDialog: true, visible: true });
      // Round and round inside the dialog, both ways: the page behind it is never reached.
      const trapped: Focused[] = [];
      for (const key of ['Tab', 'Tab', 'Tab', 'Tab', 'Shift+Tab', 'Shift+Tab', 'Shift+Tab', 'Shift+Tab']) trapped.push(await press(key));
      const [authorize, cancel] = [{ what: 'button#consent-authorize', inDialog: true, visible: true }, { what: 'button#consent-cancel', inDialog: true, visible: true }];
      expect(trapped).toEqual([cancel, authorize, cancel, authorize, cancel, authorize, cancel, authorize]);
      // Escape cancels; Enter on Authorize (where the focus is) authorizes.
      await page.keyboard.press(decision);
      await page.waitForSelector('#consent:not([open])', { state: 'attached' });
      await expect.poll(answers).toHaveLength(1);
      const [answer] = await answers();
      if (decision === 'Escape') expect(answer).toEqual({ type: 'authorized', error: true, message: 'access_denied', echo: 'authorize-button' });
      else expect([answer?.error, answer?.code?.length]).toEqual([false, 43]);
      // The focus is back where it was: the game's button.
      expect(await focused(page)).toEqual({ what: 'iframe > button#authorize', inDialog: false, visible: true });
    }
    await context.close();
  });

  // Each walks some twenty pages at two widths with axe on each: about 35 s on a loaded 2-core
  // machine (measured 2026-11-27, load 7-9), past the 30 s default.
  const WALK_MS = 120_000;
  it('signed out: every page, its error states, the email links, the second sign-in step, the example games (both widths side by side)', () => bothWidths(signedOut), WALK_MS);
  it('signed in: every page, the dialogs and the states the scripts show (a new secret, the QR code, a user opened) (both widths side by side)', () => bothWidths(signedIn), WALK_MS);
  it('the dark scheme: the home page, the account page, the consent page with Authorize disabled, the game-flow dialog (both widths side by side)', () => bothWidths(darkScheme), WALK_MS);
});
