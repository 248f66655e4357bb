/**
 * The game SDK (client/sdk/game.js, served at /sdk/game.js) in Chromium, against the real play
 * page: a test game on its own origin imports it from the service and is framed by /play/<id>.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as GameSdk from '../../client/sdk/game.js';
import { registerGame } from '../../src/games/games.js';
import { registerOAuthApp } from '../../src/oauth/clients.js';
import type { UserRecord } from '../../src/domain/users.js';
import { makeUser, startServer, TEST_PASSWORD, type TestServer } from '../helpers.js';
import { hasChromium, launchChromium } from './chromium.js';

declare global {
  interface Window {
    sdk: typeof GameSdk;
    /** The `message` listeners the page holds now (addEventListener minus removeEventListener). */
    messageListeners: number;
    /** What the framing page that never answers received. */
    got: unknown[];
    /** The echo values of the requests the play page saw. */
    echoes: unknown[];
  }
}

/**
 * The test game: counts its `message` listeners, then imports the SDK from the service
 * (`?service=`). /frame.html frames it from the game's own origin and never answers; /blank.html
 * is a page of the game's origin that does nothing.
 */
const GAME = `<!doctype html><html lang="en"><title>SDK test game</title><body><p>SDK test game</p>
<script type="module">
  window.messageListeners = 0;
  const add = window.addEventListener;
  const remove = window.removeEventListener;
  window.addEventListener = function (type, ...rest) { if (type === 'message') window.messageListeners++; return add.call(this, type, ...rest); };
  window.removeEventListener = function (type, ...rest) { if (type === 'message') window.messageListeners--; return remove.call(this, type, ...rest); };
  window.sdk = await import(new URLSearchParams(location.search).get('service') + '/sdk/game.js');
</script></body></html>`;

const FRAME = (src: string) => `<!doctype html><html lang="en"><title>not the play page</title><body>
<script>window.got = []; window.addEventListener('message', (e) => window.got.push(e.data));</script>
<iframe id="game" src="${src}" title="game"></iframe></body></html>`;

let t: TestServer;
let browser: Browser;
let gameServer: http.Server;
let gameOrigin: string;
let gameUrl: string;
let author: UserRecord;
let clientId: string;
let gameId: number;

/** A browser context signed in as a new user (who has granted nothing yet). */
async function signedInContext(): Promise<{ context: BrowserContext; user: UserRecord }> {
  const user = await makeUser(t);
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${t.baseUrl}/signin`);
  await page.fill('input[name=name]', user.name);
  await page.fill('input[name=password]', TEST_PASSWORD);
  await Promise.all([page.waitForURL(`${t.baseUrl}/account`), page.click('button[type=submit]')]);
  await page.close();
  return { context, user };
}

/** A fresh load of the play page in the context, once the game has imported the SDK. */
async function openPlay(context: BrowserContext): Promise<{ page: Page; game: Frame }> {
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(`${t.baseUrl}/play/${gameId}`);
  const game = page.frames().find((f) => f.url().startsWith(gameOrigin))!;
  await game.waitForFunction(() => window.sdk !== undefined);
  return { page, game };
}

type Outcome = { result: unknown; listeners: number } | { error: { name: string; code: string; message: string; isGameAuthError: boolean }; listeners: number };

/** Calls sdk.authorize in the game frame; settles with its result or its error, and the listeners left. */
function authorize(game: Frame, options: Partial<GameSdk.AuthorizeOptions> = {}): Promise<Outcome> {
  return game.evaluate(async (o) => {
    try {
      const result = await window.sdk.authorize(o as GameSdk.AuthorizeOptions);
      return { result, listeners: window.messageListeners };
    } catch (e) {
      const err = e as GameSdk.GameAuthError;
      return { error: { name: err.name, code: err.code, message: err.message, isGameAuthError: err instanceof window.sdk.GameAuthError }, listeners: window.messageListeners };
    }
  }, { clientId, scopes: ['openid', 'profile'], ...options });
}

function info(game: Frame, options: GameSdk.GameSdkOptions = {}): Promise<Outcome> {
  return game.evaluate(async (o) => {
    try {
      return { result: await window.sdk.info(o), listeners: window.messageListeners };
    } catch (e) {
      const err = e as GameSdk.GameAuthError;
      return { error: { name: err.name, code: err.code, message: err.message, isGameAuthError: err instanceof window.sdk.GameAuthError }, listeners: window.messageListeners };
    }
  }, options);
}

const refused = (code: string, message: string): Outcome => ({ error: { name: 'GameAuthError', code, message, isGameAuthError: true }, listeners: 0 });

/** Redeems a code from the game's own origin as the public app: the token endpoint's status and body. */
function redeem(game: Frame, code: string, codeVerifier: string): Promise<{ status: number; body: Record<string, unknown> }> {
  return game.evaluate(
    async ({ service, code, clientId, codeVerifier }) => {
      const res = await fetch(`${service}/api/oauth/token`, {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'authorization_code', code, client_id: clientId, code_verifier: codeVerifier }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    },
    { service: t.baseUrl, code, clientId, codeVerifier },
  );
}

describe.skipIf(!hasChromium)('the game SDK in Chromium', () => {
  let player: { context: BrowserContext; user: UserRecord };
  let signedOut: BrowserContext;

  beforeAll(async () => {
    t = await startServer();
    gameServer = http.createServer((req, res) => {
      const url = new URL(req.url!, 'http://x');
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      if (url.pathname === '/game.html') res.end(GAME);
      else if (url.pathname === '/frame.html') res.end(FRAME(gameUrl));
      else res.end('<!doctype html><title>blank</title>');
    });
    await new Promise<void>((resolve) => gameServer.listen(0, '127.0.0.1', resolve));
    gameOrigin = `http://127.0.0.1:${(gameServer.address() as AddressInfo).port}`;
    gameUrl = `${gameOrigin}/game.html?service=${encodeURIComponent(t.baseUrl)}`;
    author = await makeUser(t);
    const { app } = await registerOAuthApp({ store: t.store, now: t.clock.now }, { ownerId: author.id, name: 'SDK Game App', redirectUris: ['https://sdk-game.example/'], public: true });
    clientId = app.clientId;
    gameId = (await registerGame({ store: t.store, now: t.clock.now }, { authorId: author.id, title: 'SDK Game', url: gameUrl })).id;
    browser = await launchChromium();
    player = await signedInContext();
    signedOut = await browser.newContext();
  });
  afterAll(async () => {
    await browser?.close();
    gameServer?.close();
    await t?.close();
  });

  it('info: signed in or not, and the game id; concurrent requests each get their answer', async () => {
    const { page, game } = await openPlay(player.context);
    expect(await info(game)).toEqual({ result: { loggedIn: true, gameId }, listeners: 0 });
    const both = await game.evaluate(() => Promise.all([window.sdk.info(), window.sdk.info({ timeoutMs: 5000 })]));
    expect(both).toEqual([{ loggedIn: true, gameId }, { loggedIn: true, gameId }]);
    await page.close();
    const out = await openPlay(signedOut);
    expect(await info(out.game)).toEqual({ result: { loggedIn: false, gameId }, listeners: 0 });
    await out.page.close();
  });

  it('authorize: the player consents; the code and the SDK\'s verifier redeem at the token endpoint (public app, CORS), nonce included', async () => {
    const { page, game } = await openPlay(player.context);
    const pending = authorize(game, { nonce: 'nonce-1' });
    await page.waitForSelector('#consent[open]');
    expect(await page.textContent('#consent-app')).toBe('SDK Game App');
    await page.click('#consent-authorize');
    const outcome = await pending;
    expect(outcome).toEqual({ result: { code: expect.stringMatching(/^[\w-]{43}$/), codeVerifier: expect.stringMatching(/^[\w-]{43}$/) }, listeners: 0 });
    const { code, codeVerifier } = (outcome as { result: GameSdk.AuthorizeResult }).result;
    const token = await redeem(game, code, codeVerifier);
    expect(token).toEqual({
      status: 200,
      body: { access_token: expect.stringMatching(/^[\w-]{43}$/), token_type: 'Bearer', expires_in: 600, id_token: expect.any(String) },
    });
    const claims = JSON.parse(Buffer.from(String(token.body.id_token).split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    expect([claims.sub, claims.nonce, claims.aud, claims.preferred_username]).toEqual([String(player.user.id), 'nonce-1', clientId, player.user.name]);
    // One authorize per page load: the play page's own rule, passed on.
    expect(await authorize(game)).toEqual(refused('already_requested', 'This page load already asked to authorize'));
    await page.close();
  });

  it('the refusals the play page can answer, each as a GameAuthError with its code', async () => {
    const cases: [BrowserContext, Partial<GameSdk.AuthorizeOptions>, string, string][] = [
      [signedOut, {}, 'no_account', 'The player is not signed in to the service'],
      [player.context, { scopes: ['userinfo', 'email' as GameSdk.GameScope] }, 'invalid_scopes', 'The game flow does not grant these scopes'],
      [player.context, { clientId: 'unknown-client' }, 'invalid_app', "Unknown app, or its owner is not the game's author"],
      [player.context, { nonce: '' }, 'invalid_request', 'Malformed PKCE or nonce parameters'],
    ];
    for (const [context, options, code, message] of cases) {
      const { page, game } = await openPlay(context);
      expect(await authorize(game, options), code).toEqual(refused(code, message));
      expect(await page.isVisible('#consent[open]')).toBe(false);
      await page.close();
    }
  });

  it('access_denied when the player cancels, then already_requested; the focus goes back to what had it in the game', async () => {
    const { context } = await signedInContext();
    const { page, game } = await openPlay(context);
    await game.evaluate(() => document.body.append(Object.assign(document.createElement('button'), { id: 'ask', textContent: 'Sign in' })));
    await game.focus('#ask');
    const pending = authorize(game);
    await page.waitForSelector('#consent[open]');
    // The dialog took the focus (the game's frame is inert behind it).
    expect(await game.evaluate(() => document.activeElement?.localName)).toBe('body');
    await page.keyboard.press('Escape');
    expect(await pending).toEqual(refused('access_denied', 'The player refused'));
    expect(await game.evaluate(() => document.activeElement?.id)).toBe('ask');
    expect(await authorize(game)).toEqual(refused('already_requested', 'This page load already asked to authorize'));
    await context.close();
  });

  it('server_error when the service fails to issue the code', async () => {
    // The player above granted the app already: no dialog, straight to POST /api/games/<id>/codes.
    const { page, game } = await openPlay(player.context);
    await page.route('**/api/games/*/codes', (route) => route.fulfill({ status: 500, contentType: 'application/json', body: '{"message":"Internal server error"}' }));
    expect(await authorize(game)).toEqual(refused('server_error', 'The service failed to answer'));
    await page.close();
  });

  it("ignores answers from other windows, of the wrong type or with another echo; the play page's settles it", async () => {
    const { context } = await signedInContext();
    const { page, game } = await openPlay(context);
    // The play page records the echo of each request it receives.
    await page.evaluate(() => {
      window.echoes = [];
      window.addEventListener('message', (e) => window.echoes.push((e.data as { echo?: unknown }).echo));
    });
    await page.evaluate((src) => {
      const intruder = document.createElement('iframe');
      intruder.id = 'intruder';
      intruder.src = src;
      document.body.append(intruder);
    }, `${gameOrigin}/blank.html`);
    await page.frameLocator('#intruder').locator('title').waitFor({ state: 'attached' });
    const pending = authorize(game);
    await page.waitForSelector('#consent[open]');
    const echo = await page.evaluate(() => window.echoes[0]);
    expect(echo).toEqual(expect.stringMatching(/^game-sdk:[\w-]{22}$/));
    const forged = { type: 'authorized', error: false, code: 'forged-code', echo };
    // A sibling frame on the game's origin, and the game's own window: not the play page.
    const intruder = page.frames().find((f) => f.url() === `${gameOrigin}/blank.html`)!;
    await intruder.evaluate((m) => window.parent.frames[0]!.postMessage(m, '*'), forged);
    await game.evaluate((m) => window.postMessage(m, '*'), forged);
    // The play page itself, but an answer of the wrong type, or with another echo.
    const fromPlayPage = (m: unknown) => page.evaluate((message) => (document.getElementById('game') as HTMLIFrameElement).contentWindow!.postMessage(message, '*'), m);
    await fromPlayPage({ type: 'info', logged_in: false, game_id: 1, echo });
    await fromPlayPage({ ...forged, echo: 'game-sdk:another' });
    await page.waitForTimeout(300);
    expect(await game.evaluate(() => window.messageListeners)).toBe(1);
    await page.click('#consent-authorize');
    const outcome = await pending;
    expect(outcome).toEqual({ result: { code: expect.stringMatching(/^[\w-]{43}$/), codeVerifier: expect.stringMatching(/^[\w-]{43}$/) }, listeners: 0 });
    const { code, codeVerifier } = (outcome as { result: GameSdk.AuthorizeResult }).result;
    expect((await redeem(game, code, codeVerifier)).status).toBe(200);
    await context.close();
  });

  it('timeout: a framing page that is not the play page never answers, and receives nothing; no service origin: not_framed; an uncloneable message: the browser\'s error', async () => {
    const page = await player.context.newPage();
    await page.goto(`${gameOrigin}/frame.html`);
    const game = page.frames().find((f) => f.url() === gameUrl)!;
    await game.waitForFunction(() => window.sdk !== undefined);
    expect(await info(game, { timeoutMs: 200 })).toEqual(refused('timeout', 'The play page did not answer in time'));
    expect(await authorize(game, { timeoutMs: 200 })).toEqual(refused('timeout', 'The play page did not answer in time'));
    // The SDK posted to the service's origin only: the parent on another origin got nothing.
    expect(await page.evaluate(() => window.got)).toEqual([]);
    expect(await info(game, { service: 'not a url' })).toEqual(refused('not_framed', 'The service’s origin is unknown: pass options.service'));
    // A message the structured clone cannot copy: the browser's error, and no listener left behind.
    const uncloneable = await game.evaluate(() =>
      window.sdk.authorize({ clientId: 'x', scopes: [(() => 'userinfo') as unknown as GameSdk.GameScope] }).then(
        () => 'resolved',
        (err: Error) => `${err.name} ${window.messageListeners}`,
      ),
    );
    expect(uncloneable).toBe('DataCloneError 0');
    await page.close();
  });

  it('not_framed: the game opened on its own', async () => {
    const page = await signedOut.newPage();
    await page.goto(gameUrl);
    await page.waitForFunction(() => window.sdk !== undefined);
    const game = page.mainFrame();
    expect(await info(game)).toEqual(refused('not_framed', 'The game is not framed by the service’s play page'));
    expect(await authorize(game)).toEqual(refused('not_framed', 'The game is not framed by the service’s play page'));
    await page.close();
  });
});
