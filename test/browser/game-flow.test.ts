/**
 * The game flow in Chromium: the bundled example game (examples/game/index.html), served from
 * another origin, is framed by /play/<id> and asks for codes by postMessage.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerGame } from '../../src/games/games.js';
import { registerOAuthApp } from '../../src/oauth/clients.js';
import type { UserRecord } from '../../src/domain/users.js';
import { makeClient, makeUser, startServer, tokenRequest, type TestClient, type TestServer, TEST_PASSWORD } from '../helpers.js';
import { hasChromium, launchChromium, SCREENSHOTS_DIR } from './chromium.js';

const GAME_PAGE = fs.readFileSync(path.resolve(import.meta.dirname, '../../examples/game/index.html'), 'utf8');

let t: TestServer;
let browser: Browser;
let gameServer: http.Server;
let gameOrigin: string;
let author: UserRecord;
let player: UserRecord;
let client: TestClient;
let gameId: number;

interface Received {
  type: string;
  error?: boolean;
  code?: string;
  message?: string;
  echo?: unknown;
  logged_in?: boolean;
  game_id?: number;
}

declare global {
  interface Window {
    ask(message: unknown): void;
    received: Received[];
  }
}

/** Signed-in browser contexts, one per user: each test still opens its own page (a fresh load). */
const contexts = new Map<number, BrowserContext>();

async function signedInContext(user: UserRecord): Promise<BrowserContext> {
  let context = contexts.get(user.id);
  if (!context) {
    context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${t.baseUrl}/signin`);
    await page.fill('input[name=name]', user.name);
    await page.fill('input[name=password]', TEST_PASSWORD);
    await Promise.all([page.waitForURL(`${t.baseUrl}/account`), page.click('button[type=submit]')]);
    await page.close();
    contexts.set(user.id, context);
  }
  return context;
}

async function openPlay(signedInAs?: UserRecord, id = gameId): Promise<{ close: () => Promise<void>; page: Page; game: Frame }> {
  const context = signedInAs ? await signedInContext(signedInAs) : await browser.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(`${t.baseUrl}/play/${id}`);
  await page.frameLocator('#game').locator('#authorize').waitFor();
  const game = page.frames().find((f) => f.url().startsWith(gameOrigin))!;
  return { page, game, close: () => (signedInAs ? page.close() : context.close()) };
}

/** Sends a message from the game and waits for the answer number `n` (1-based). */
async function ask(game: Frame, message: unknown, n = 1): Promise<Received> {
  await game.evaluate((m) => window.ask(m), message);
  return answer(game, n);
}

async function answer(game: Frame, n: number): Promise<Received> {
  await game.waitForFunction((count) => window.received.length >= count, n);
  return game.evaluate((i) => window.received[i - 1]!, n);
}

const authorize = (clientId: string, extra: Record<string, unknown> = {}) => ({ action: 'authorize', client_id: clientId, scopes: ['userinfo'], ...extra });

describe.skipIf(!hasChromium)('game flow in Chromium', () => {
  beforeAll(async () => {
    t = await startServer();
    gameServer = http.createServer((_req, res) => {
      res.setHeader('Content-Type', 'text/html');
      res.end(GAME_PAGE);
    });
    await new Promise<void>((resolve) => gameServer.listen(0, '127.0.0.1', resolve));
    gameOrigin = `http://127.0.0.1:${(gameServer.address() as AddressInfo).port}`;
    author = await makeUser(t);
    player = await makeUser(t);
    client = await makeClient(t, author.id);
    const game = await registerGame(
      { store: t.store, now: t.clock.now },
      { authorId: author.id, title: 'Example Game', url: `${gameOrigin}/?service=${encodeURIComponent(t.baseUrl)}&exchange=off` },
    );
    gameId = game.id;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    gameServer?.close();
    await t?.close();
  });

  it('info tells the game the signed-in state, with the echo copied back', async () => {
    const { close, game } = await openPlay(player);
    expect(await ask(game, { action: 'info', echo: { n: 1 } })).toEqual({ type: 'info', logged_in: true, game_id: gameId, echo: { n: 1 } });
    await close();
  });

  it('authorize: the player consents in the dialog; the code gives a token whose whois is the player', async () => {
    const { close, page, game } = await openPlay(player);
    await game.evaluate((m) => window.ask(m), authorize(client.clientId, { echo: 'e1' }));
    await page.waitForSelector('#consent[open]');
    expect(await page.textContent('#consent-app')).toBe('Test App');
    expect(await page.textContent('#consent-owner')).toBe(author.name);
    await page.screenshot({ path: path.join(SCREENSHOTS_DIR, 'play-consent-dialog.png'), fullPage: true });
    await page.click('#consent-authorize');
    const reply = await answer(game, 1);
    expect(reply).toEqual({ type: 'authorized', error: false, code: expect.stringMatching(/^[\w-]{43}$/), echo: 'e1' });
    const token = await tokenRequest(t, { grant_type: 'authorization_code', code: reply.code!, client_id: client.clientId, client_secret: client.clientSecret });
    expect(token.status).toBe(200);
    const { access_token } = (await token.json()) as { access_token: string };
    const whois = await fetch(`${t.baseUrl}/api/oauth/whois`, { headers: { Authorization: `Bearer ${access_token}` } });
    expect(await whois.json()).toEqual({ id: player.id, name: player.name });
    await close();
  });

  it('a player who already granted the app gets authorized on the next load without the dialog', async () => {
    const { close, page, game } = await openPlay(player);
    const reply = await ask(game, authorize(client.clientId));
    expect(reply).toEqual({ type: 'authorized', error: false, code: expect.stringMatching(/^[\w-]{43}$/) });
    expect(await page.isVisible('#consent[open]')).toBe(false);
    const token = await tokenRequest(t, { grant_type: 'authorization_code', code: reply.code!, client_id: client.clientId, client_secret: client.clientSecret });
    expect(token.status).toBe(200);
    await close();
  });

  it('authorize: the player refuses (access_denied), and a second authorize on the same load is already_requested', async () => {
    // A player who has not granted the app yet (the one above has): the dialog shows.
    const { close, page, game } = await openPlay(await makeUser(t));
    await game.evaluate((m) => window.ask(m), authorize(client.clientId));
    await page.waitForSelector('#consent[open]');
    await page.click('#consent-cancel');
    expect(await answer(game, 1)).toEqual({ type: 'authorized', error: true, message: 'access_denied' });
    expect(await ask(game, authorize(client.clientId, { echo: 2 }), 2)).toEqual({ type: 'authorized', error: true, message: 'already_requested', echo: 2 });
    expect(await page.isVisible('#consent[open]')).toBe(false);
    await close();
  });

  it('signed out: no_account (and info says logged_in false)', async () => {
    const { close, game } = await openPlay();
    expect(await ask(game, { action: 'info' })).toEqual({ type: 'info', logged_in: false, game_id: gameId });
    expect(await ask(game, authorize(client.clientId), 2)).toEqual({ type: 'authorized', error: true, message: 'no_account' });
    await close();
  });

  it('a game that expects the service elsewhere (another port) says so at once, and its buttons get an answer', async () => {
    const elsewhere = 'http://127.0.0.1:9';
    const misplaced = await registerGame(
      { store: t.store, now: t.clock.now },
      { authorId: author.id, title: 'Misplaced Game', url: `${gameOrigin}/?service=${encodeURIComponent(elsewhere)}` },
    );
    const { close, game } = await openPlay(player, misplaced.id);
    const serviceOrigin = new URL(t.baseUrl).origin;
    expect(await game.textContent('#log')).toBe(
      `problem  This game expects the service at ${elsewhere} but is framed by ${serviceOrigin}: ` +
        `restart serve.mjs with SERVICE_URL=${serviceOrigin} (or add ?service=${encodeURIComponent(serviceOrigin)} to the game's address).\n`,
    );
    await game.click('#info');
    await game.waitForFunction(() => document.getElementById('log')!.textContent.includes('No answer'), undefined, { timeout: 8000 });
    expect(await game.textContent('#log')).toContain(`problem  No answer from the service at ${elsewhere} in 3 seconds. This game expects the service at ${elsewhere} but is framed by ${serviceOrigin}`);
    expect(await game.evaluate(() => window.received.length)).toBe(0);
    await close();
  });

  it("an app whose owner is not the game's author, or an unknown app: invalid_app, without a dialog", async () => {
    const stranger = await makeClient(t, player.id);
    for (const clientId of [stranger.clientId, 'unknown-client']) {
      const { close, page, game } = await openPlay(player);
      expect(await ask(game, authorize(clientId))).toEqual({ type: 'authorized', error: true, message: 'invalid_app' });
      expect(await page.isVisible('#consent[open]')).toBe(false);
      await close();
    }
  });

  describe('a public app (no secret; PKCE)', () => {
    let publicClientId: string;
    beforeAll(async () => {
      const { app } = await registerOAuthApp({ store: t.store, now: t.clock.now }, { ownerId: author.id, name: 'Public Game App', redirectUris: ['https://public.example/cb'], public: true });
      publicClientId = app.clientId;
    });

    it('passes code_challenge on; the game redeems the code from its own origin with client_id and the verifier (CORS)', async () => {
      const verifier = randomBytes(32).toString('base64url');
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      const { close, page, game } = await openPlay(await makeUser(t));
      await game.evaluate((m) => window.ask(m), authorize(publicClientId, { code_challenge: challenge, code_challenge_method: 'S256', nonce: 'n1' }));
      await page.waitForSelector('#consent[open]');
      await page.click('#consent-authorize');
      const reply = await answer(game, 1);
      expect(reply).toEqual({ type: 'authorized', error: false, code: expect.stringMatching(/^[\w-]{43}$/) });
      // The browser itself, on the game's origin, calls the token endpoint and whois: no backend.
      const result = await game.evaluate(
        async ({ service, code, clientId, codeVerifier }) => {
          const token = await fetch(`${service}/api/oauth/token`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ grant_type: 'authorization_code', code, client_id: clientId, code_verifier: codeVerifier }),
          });
          const { access_token } = (await token.json()) as { access_token: string };
          const whois = await fetch(`${service}/api/oauth/whois`, { headers: { Authorization: `Bearer ${access_token}` } });
          return { token: token.status, whois: whois.status };
        },
        { service: t.baseUrl, code: reply.code!, clientId: publicClientId, codeVerifier: verifier },
      );
      expect(result).toEqual({ token: 200, whois: 200 });
      await close();
    });

    it('without a code_challenge: invalid_request; a malformed one: invalid_request without a dialog', async () => {
      const first = await openPlay(await makeUser(t));
      await first.game.evaluate((m) => window.ask(m), authorize(publicClientId));
      await first.page.waitForSelector('#consent[open]');
      await first.page.click('#consent-authorize');
      expect(await answer(first.game, 1)).toEqual({ type: 'authorized', error: true, message: 'invalid_request' });
      await first.close();
      const second = await openPlay(player);
      expect(await ask(second.game, authorize(publicClientId, { code_challenge: 'x', code_challenge_method: 'plain' }))).toEqual({ type: 'authorized', error: true, message: 'invalid_request' });
      expect(await second.page.isVisible('#consent[open]')).toBe(false);
      await second.close();
    });
  });

  it('scopes the game flow does not grant (email, or no base scope): invalid_scopes', async () => {
    const { close, game } = await openPlay(player);
    expect(await ask(game, authorize(client.clientId, { scopes: ['userinfo', 'email'] }))).toEqual({ type: 'authorized', error: true, message: 'invalid_scopes' });
    await close();
  });

  it("ignores messages from any window but the game's iframe, even from the game's origin", async () => {
    const { close, page, game } = await openPlay(await makeUser(t));
    // The play page itself, and a second frame of the game's origin, ask first.
    await page.evaluate((m) => window.postMessage(m, '*'), authorize(client.clientId));
    await page.evaluate((src) => {
      const intruder = document.createElement('iframe');
      intruder.id = 'intruder';
      intruder.src = src;
      document.body.append(intruder);
    }, `${gameOrigin}/?service=${encodeURIComponent(t.baseUrl)}&exchange=off`);
    await page.frameLocator('#intruder').locator('#authorize').waitFor();
    const intruder = page.frames().find((f) => f !== game && f.url().startsWith(gameOrigin))!;
    await intruder.evaluate((m) => window.ask(m), authorize(client.clientId));
    await intruder.evaluate((m) => window.ask(m), { action: 'info' });
    await page.waitForTimeout(300);
    expect(await page.isVisible('#consent[open]')).toBe(false);
    expect(await intruder.evaluate(() => window.received.length)).toBe(0);
    expect(await game.evaluate(() => window.received.length)).toBe(0);
    // None of them used up the one authorize of this page load: the game's own still works.
    await game.evaluate((m) => window.ask(m), authorize(client.clientId));
    await page.waitForSelector('#consent[open]');
    await page.click('#consent-authorize');
    expect((await answer(game, 1)).error).toBe(false);
    await close();
  });
});
