/** Games and the game flow's server side: registerGame, listGames, updateGame, deleteGame, getGameApp, issueGameCode, getGamesPage, getPlayPage. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEvent, AuditFields } from '../../src/audit.js';
import { registerGame } from '../../src/games/games.js';
import { Agent, makeClient, makeUser, signedInAgent, startServer, tokenRequest, type TestServer } from '../helpers.js';

let t: TestServer;
/** The audit events of the games API, as the trail hears them. */
let audited: { event: AuditEvent; fields: AuditFields }[] = [];
beforeAll(async () => {
  t = await startServer();
  const audit = t.app.deps.audit;
  t.app.deps.audit = (event, fields) => {
    if (event.startsWith('game_')) audited.push({ event, fields });
    audit(event, fields);
  };
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

/** A game registered through the API by a new signed-in author. */
async function ownGame(title = 'Space Chess', url = 'https://chess.example/play') {
  const { agent, user } = await signedInAgent(t);
  const res = await agent.json('POST', '/api/games', { title, url });
  expect(res.status).toBe(201);
  const game = (await res.json()) as { id: number; title: string; url: string; author: { id: number; name: string }; created_at: number };
  return { agent, user, game };
}

/** A JSON call with the session cookie and no CSRF token. */
function withoutCsrf(agent: Agent, method: string, path: string, body?: unknown): Promise<Response> {
  return agent.fetch(path, { method, headers: { 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
}

async function answer(res: Response): Promise<[number, unknown]> {
  return [res.status, res.status === 204 ? await res.text() : await res.json()];
}

describe('updateGame', () => {
  it("changes the owner's game (title trimmed, a field left out unchanged) and answers it as listGames lists it; audited with the fields changed", async () => {
    const { agent, user, game } = await ownGame();
    audited = [];
    const renamed = await agent.json('PATCH', `/api/games/${game.id}`, { title: '  Space Chess 2  ' });
    const expected = { id: game.id, title: 'Space Chess 2', url: 'https://chess.example/play', author: { id: user.id, name: user.name }, created_at: game.created_at };
    expect(await answer(renamed)).toEqual([200, expected]);
    const moved = await agent.json('PATCH', `/api/games/${game.id}`, { url: 'http://localhost:8081/v2/' });
    expect(await answer(moved)).toEqual([200, { ...expected, url: 'http://localhost:8081/v2/' }]);
    const both = await agent.json('PATCH', `/api/games/${game.id}`, { title: 'Space Chess 3', url: 'https://chess3.example/' });
    const after = { ...expected, title: 'Space Chess 3', url: 'https://chess3.example/' };
    expect(await answer(both)).toEqual([200, after]);
    const list = (await (await fetch(`${t.baseUrl}/api/games`)).json()) as { games: { id: number }[] };
    expect(list.games.find((g) => g.id === game.id)).toEqual(after);
    expect(audited).toEqual([
      { event: 'game_updated', fields: { userId: user.id, gameId: game.id, fields: ['title'], ip: '127.0.0.1' } },
      { event: 'game_updated', fields: { userId: user.id, gameId: game.id, fields: ['url'], ip: '127.0.0.1' } },
      { event: 'game_updated', fields: { userId: user.id, gameId: game.id, fields: ['title', 'url'], ip: '127.0.0.1' } },
    ]);
  });

  it('moves the play page to the new address at once: it frames it and allows only its origin', async () => {
    const { agent, game } = await ownGame('Moving', 'https://old.example/play');
    expect((await agent.json('PATCH', `/api/games/${game.id}`, { url: 'https://new.example/play?x=1' })).status).toBe(200);
    const page = await fetch(`${t.baseUrl}/play/${game.id}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toMatch(/(^|;)frame-src 'self' https:\/\/new\.example(;|$)/);
    const body = await page.text();
    expect(body).toContain('src="https://new.example/play?x=1"');
    expect(body).not.toContain('old.example');
  });

  it("is 404 for another user's game, which stays as it was, and for an unknown one", async () => {
    const { game } = await ownGame();
    const { agent } = await signedInAgent(t);
    audited = [];
    for (const id of [game.id, 999_999]) {
      expect(await answer(await agent.json('PATCH', `/api/games/${id}`, { title: 'Mine now' }))).toEqual([404, { message: 'Game not found' }]);
    }
    // Nothing to change is not worth telling a stranger apart from an owner either.
    expect(await answer(await agent.json('PATCH', `/api/games/${game.id}`, {}))).toEqual([404, { message: 'Game not found' }]);
    expect((await t.store.games.getGame(game.id))?.title).toBe('Space Chess');
    expect(audited).toEqual([]);
  });

  it('refuses an empty change, a bad title or address, and fields it does not know, changing nothing', async () => {
    const { agent, game } = await ownGame();
    const cases: [unknown, string][] = [
      [{}, 'Send at least one of title and url'],
      [{ title: ' ' }, 'Game title must be 1 to 64 characters'],
      [{ title: 'a\u0007b' }, 'Game title must not contain control characters'],
      [{ title: 'T', url: 'http://chess.example/' }, 'Game URL must use https (http is allowed on localhost only): http://chess.example/'],
      [{ url: 'https://chess.example/#top' }, 'Game URL must not contain a fragment: https://chess.example/#top'],
      [{ url: 'chess.example' }, 'Game URL is not an absolute URL: chess.example'],
      [{ title: 'x'.repeat(65) }, 'Body field title must NOT have more than 64 characters'],
      [{ title: 'T', author: { id: 1 } }, 'Body field author is not allowed'],
      [{ title: 'T', created_at: 1 }, 'Body field created_at is not allowed'],
      [{ title: null }, 'Body field title must be string'],
    ];
    for (const [body, message] of cases) {
      expect(await answer(await agent.json('PATCH', `/api/games/${game.id}`, body)), JSON.stringify(body)).toEqual([400, { message }]);
    }
    expect(await t.store.games.getGame(game.id)).toMatchObject({ title: 'Space Chess', url: 'https://chess.example/play' });
  });

  it('is 401 signed out and 403 without the CSRF token', async () => {
    const { agent, game } = await ownGame();
    expect(await answer(await new Agent(t).json('PATCH', `/api/games/${game.id}`, { title: 'T' }))).toEqual([401, { message: 'Sign in first' }]);
    expect(await answer(await withoutCsrf(agent, 'PATCH', `/api/games/${game.id}`, { title: 'T' }))).toEqual([403, { message: 'Invalid CSRF token' }]);
    expect((await t.store.games.getGame(game.id))?.title).toBe('Space Chess');
  });
});

describe('deleteGame', () => {
  it('deletes the game (204): /play/<id> answers 404, listGames drops it, its game flow stops; audited', async () => {
    const { agent, user, game } = await ownGame();
    const client = await makeClient(t, user.id);
    const player = await signedInAgent(t);
    expect((await fetch(`${t.baseUrl}/play/${game.id}`)).status).toBe(200);
    audited = [];
    expect(await answer(await agent.json('DELETE', `/api/games/${game.id}`))).toEqual([204, '']);
    expect(audited).toEqual([{ event: 'game_deleted', fields: { userId: user.id, gameId: game.id, ip: '127.0.0.1' } }]);

    const play = await fetch(`${t.baseUrl}/play/${game.id}`);
    expect([play.status, play.headers.get('content-type')]).toEqual([404, 'text/html; charset=utf-8']);
    expect(await play.text()).toContain('Game not found');
    const list = (await (await fetch(`${t.baseUrl}/api/games`)).json()) as { games: { id: number }[] };
    expect(list.games.map((g) => g.id)).not.toContain(game.id);
    expect(await answer(await fetch(`${t.baseUrl}/api/games/${game.id}/apps/${client.clientId}`))).toEqual([404, { message: 'Game not found' }]);
    const code = await player.agent.json('POST', `/api/games/${game.id}/codes`, { client_id: client.clientId, scopes: ['userinfo'] });
    expect(await answer(code)).toEqual([404, { message: 'Game not found' }]);
    expect(await answer(await agent.json('DELETE', `/api/games/${game.id}`))).toEqual([404, { message: 'Game not found' }]);
    expect(await answer(await agent.json('PATCH', `/api/games/${game.id}`, { title: 'Back' }))).toEqual([404, { message: 'Game not found' }]);
    // The app stays: it belongs to the author, not to the game.
    expect(await t.store.apps.getApp(client.clientId)).toBeDefined();
  });

  it('never gives a deleted game\'s id to a new game', async () => {
    const { agent, game } = await ownGame();
    expect((await agent.json('DELETE', `/api/games/${game.id}`)).status).toBe(204);
    const { game: next } = await ownGame();
    expect(next.id).toBeGreaterThan(game.id);
    expect((await fetch(`${t.baseUrl}/play/${game.id}`)).status).toBe(404);
  });

  it("is 404 for another user's game, which stays, and for an unknown one", async () => {
    const { game } = await ownGame();
    const { agent } = await signedInAgent(t);
    audited = [];
    for (const id of [game.id, 999_999]) {
      expect(await answer(await agent.json('DELETE', `/api/games/${id}`))).toEqual([404, { message: 'Game not found' }]);
    }
    expect(await t.store.games.getGame(game.id)).toBeDefined();
    expect((await fetch(`${t.baseUrl}/play/${game.id}`)).status).toBe(200);
    expect(audited).toEqual([]);
  });

  it('is 401 signed out and 403 without the CSRF token, and the game stays', async () => {
    const { agent, game } = await ownGame();
    expect(await answer(await new Agent(t).json('DELETE', `/api/games/${game.id}`))).toEqual([401, { message: 'Sign in first' }]);
    expect(await answer(await withoutCsrf(agent, 'DELETE', `/api/games/${game.id}`))).toEqual([403, { message: 'Invalid CSRF token' }]);
    expect(await t.store.games.getGame(game.id)).toBeDefined();
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
      expect(await res.text()).toContain('<p id="error-message">Game not found</p>');
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
