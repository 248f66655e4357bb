/** Games and the game flow's server side: registerGame, listGames, getGameApp, issueGameCode, getGamesPage, getPlayPage. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerGame } from '../../src/games/games.js';
import { Agent, makeClient, makeUser, signedInAgent, startServer, tokenRequest, type TestServer } from '../helpers.js';

let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(async () => t?.close());

/** A game by a new author, with an app of that author. */
async function authoredGame(url = 'https://chess.example/play?level=2') {
  const author = await makeUser(t);
  const game = await registerGame({ store: t.store, now: t.clock.now }, { authorId: author.id, title: 'Space Chess', url });
  const client = await makeClient(t, author.id);
  return { author, game, client };
}

describe('registerGame and listGames', () => {
  it('registers a game for its signed-in author (201) and lists it, newest first', async () => {
    const { agent, user } = await signedInAgent(t);
    const res = await agent.json('POST', '/api/games', { title: ' Tetris ', url: 'http://localhost:8081/' });
    expect(res.status).toBe(201);
    const game = (await res.json()) as { id: number };
    expect(game).toEqual({ id: expect.any(Number), title: 'Tetris', url: 'http://localhost:8081/', author: { id: user.id, name: user.name }, created_at: t.clock.now() });
    const list = (await (await fetch(`${t.baseUrl}/api/games`)).json()) as { games: { id: number }[] };
    expect(list.games[0]).toEqual(game);
  });

  it('refuses a plain-http address off localhost and an empty title; 401 signed out; 403 without CSRF', async () => {
    const { agent } = await signedInAgent(t);
    const http = await agent.json('POST', '/api/games', { title: 'T', url: 'http://chess.example/' });
    expect([http.status, await http.json()]).toEqual([400, { message: 'Game URL must use https (http is allowed on localhost only): http://chess.example/' }]);
    const empty = await agent.json('POST', '/api/games', { title: '', url: 'https://chess.example/' });
    expect([empty.status, await empty.json()]).toEqual([400, { message: 'Game title must be 1 to 64 characters' }]);
    expect((await new Agent(t).json('POST', '/api/games', { title: 'T', url: 'https://chess.example/' })).status).toBe(401);
    const forged = await agent.fetch('/api/games', { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': 'x' }, body: '{"title":"T","url":"https://a.example/"}' });
    expect(forged.status).toBe(403);
  });
});

describe('getGameApp', () => {
  it("names an app of the game's author and its owner", async () => {
    const { author, game, client } = await authoredGame();
    const res = await fetch(`${t.baseUrl}/api/games/${game.id}/apps/${client.clientId}`);
    expect([res.status, await res.json()]).toEqual([200, { client_id: client.clientId, name: 'Test App', owner: { id: author.id, name: author.name }, granted: false }]);
  });

  it("is 403 for someone else's app, 404 for an unknown app or game", async () => {
    const { game } = await authoredGame();
    const stranger = await makeClient(t, (await makeUser(t)).id);
    const other = await fetch(`${t.baseUrl}/api/games/${game.id}/apps/${stranger.clientId}`);
    expect([other.status, await other.json()]).toEqual([403, { message: "The app's owner is not the game's author" }]);
    const app = await fetch(`${t.baseUrl}/api/games/${game.id}/apps/unknown`);
    expect([app.status, await app.json()]).toEqual([404, { message: 'App not found' }]);
    const missing = await fetch(`${t.baseUrl}/api/games/999999/apps/${stranger.clientId}`);
    expect([missing.status, await missing.json()]).toEqual([404, { message: 'Game not found' }]);
  });
});

describe('issueGameCode', () => {
  it('issues a code for the player, bound to no redirect_uri, that the app exchanges for a userinfo token', async () => {
    const { game, client } = await authoredGame();
    const { agent, user } = await signedInAgent(t);
    const res = await agent.json('POST', `/api/games/${game.id}/codes`, { client_id: client.clientId, scopes: ['userinfo'] });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const { code } = (await res.json()) as { code: string };
    expect(code).toMatch(/^[\w-]{43}$/);
    const token = await tokenRequest(t, { grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: client.clientSecret });
    const { access_token } = (await token.json()) as { access_token: string };
    const whois = await fetch(`${t.baseUrl}/api/oauth/whois`, { headers: { Authorization: `Bearer ${access_token}` } });
    expect(await whois.json()).toEqual({ id: user.id, name: user.name });
  });

  it('grants userinfo, openid and profile, never email: anything else is 400', async () => {
    const { game, client } = await authoredGame();
    const { agent } = await signedInAgent(t);
    const rule = 'The game flow grants "userinfo", "openid" and "profile" (never "email"), in this order, and needs "userinfo" or "openid"';
    for (const scopes of [['userinfo', 'email'], ['email'], [], ['userinfo', 'userinfo'], ['profile'], ['userinfo', 'profile'], ['openid', 'userinfo'], ['openid', 'email'], ['x']]) {
      const res = await agent.json('POST', `/api/games/${game.id}/codes`, { client_id: client.clientId, scopes });
      expect([res.status, await res.json()]).toEqual([400, { message: rule }]);
      const app = await agent.fetch(`/api/games/${game.id}/apps/${client.clientId}?scope=${encodeURIComponent(scopes.join(' '))}`);
      expect([app.status, await app.json()]).toEqual([400, { message: rule }]);
    }
    for (const scopes of [['userinfo'], ['openid'], ['openid', 'profile'], ['userinfo', 'openid', 'profile']]) {
      const res = await agent.json('POST', `/api/games/${game.id}/codes`, { client_id: client.clientId, scopes });
      expect(res.status).toBe(200);
    }
  });

  it('an openid game code gives an ID token with the nonce, the sign-in time and how (amr, acr); granted follows the scopes asked for', async () => {
    const { game, client } = await authoredGame();
    const user = await makeUser(t);
    const agent = new Agent(t);
    const signedInAt = t.clock.now();
    await agent.signIn(user);
    const before = await agent.fetch(`/api/games/${game.id}/apps/${client.clientId}?scope=openid%20profile`);
    expect(((await before.json()) as { granted: boolean }).granted).toBe(false);
    t.clock.advance(5000);
    const res = await agent.json('POST', `/api/games/${game.id}/codes`, { client_id: client.clientId, scopes: ['openid', 'profile'], nonce: 'game-nonce' });
    const { code } = (await res.json()) as { code: string };
    const token = await tokenRequest(t, { grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: client.clientSecret });
    const { id_token } = (await token.json()) as { id_token: string };
    const claims = JSON.parse(Buffer.from(id_token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    expect(claims).toMatchObject({ sub: String(user.id), aud: client.clientId, nonce: 'game-nonce', auth_time: Math.floor(signedInAt / 1000), amr: ['pwd'], acr: '1', preferred_username: user.name });
    const after = await agent.fetch(`/api/games/${game.id}/apps/${client.clientId}?scope=openid%20profile`);
    expect(((await after.json()) as { granted: boolean }).granted).toBe(true);
    // The grant covers what was granted, not more: userinfo was never asked for.
    const seed = await agent.fetch(`/api/games/${game.id}/apps/${client.clientId}`);
    expect(((await seed.json()) as { granted: boolean }).granted).toBe(false);
  });

  it("enforces app owner == game author on the server (403), unknown app 404, signed out 401, no CSRF 403", async () => {
    const { game } = await authoredGame();
    const stranger = await makeClient(t, (await makeUser(t)).id);
    const { agent } = await signedInAgent(t);
    const other = await agent.json('POST', `/api/games/${game.id}/codes`, { client_id: stranger.clientId, scopes: ['userinfo'] });
    expect([other.status, await other.json()]).toEqual([403, { message: "The app's owner is not the game's author" }]);
    const unknown = await agent.json('POST', `/api/games/${game.id}/codes`, { client_id: 'unknown', scopes: ['userinfo'] });
    expect([unknown.status, await unknown.json()]).toEqual([404, { message: 'App not found' }]);
    const anon = await new Agent(t).json('POST', `/api/games/${game.id}/codes`, { client_id: stranger.clientId, scopes: ['userinfo'] });
    expect([anon.status, await anon.json()]).toEqual([401, { message: 'Sign in first' }]);
    const forged = await agent.fetch(`/api/games/${game.id}/codes`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"client_id":"x","scopes":["userinfo"]}' });
    expect([forged.status, await forged.json()]).toEqual([403, { message: 'Invalid CSRF token' }]);
  });
});

describe('getPlayPage', () => {
  it("frames the game (CSP frame-src allows the game's origin only) and tells the script the signed-in state", async () => {
    const { game } = await authoredGame();
    const anon = await new Agent(t).fetch(`/play/${game.id}`);
    expect(anon.status).toBe(200);
    const csp = anon.headers.get('content-security-policy')!;
    expect(csp).toMatch(/(^|;)frame-src 'self' https:\/\/chess\.example(;|$)/);
    expect(csp).toContain("frame-ancestors 'none'");
    const body = await anon.text();
    expect(body).toContain('<iframe id="game" src="https://chess.example/play?level=2" title="Space Chess" data-origin="https://chess.example" data-game-id="' + game.id + '" data-logged-in="false"');
    expect(body).toContain(`<a href="/signin?return_to=%2Fplay%2F${game.id}">Sign in</a>`);
    const { agent, user } = await signedInAgent(t);
    const signedIn = await (await agent.fetch(`/play/${game.id}`)).text();
    expect(signedIn).toContain('data-logged-in="true"');
    expect(signedIn).toContain(`Playing as <strong>${user.name}</strong>`);
  });

  it('is a 404 page for an unknown or malformed game id', async () => {
    for (const id of ['999999', 'abc', '0']) {
      const res = await fetch(`${t.baseUrl}/play/${id}`);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await res.text()).toContain('<p class="error" id="error-message">Game not found</p>');
    }
  });
});

describe('getGamesPage', () => {
  it('lists games with escaped titles, and offers the form only when signed in', async () => {
    const author = await makeUser(t);
    await registerGame({ store: t.store, now: t.clock.now }, { authorId: author.id, title: '<script>alert(1)</script>', url: 'https://x.example/' });
    const anon = await (await fetch(`${t.baseUrl}/games`)).text();
    expect(anon).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(anon).not.toContain('<script>alert(1)</script>');
    expect(anon).not.toContain('id="game-form"');
    const { agent } = await signedInAgent(t);
    expect(await (await agent.fetch('/games')).text()).toContain('<form id="game-form" class="stack">');
  });
});
