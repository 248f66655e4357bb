/**
 * Contract test: real requests through `prism proxy openapi.yaml <app> --errors`, which turns any
 * response that breaks the contract into a 500 listing the violations. Every JSON operation's
 * success and error responses go through it. Prism answers contract-invalid requests itself
 * (422, never forwarded), so schema-level bad input is tested against the app directly, in the
 * per-operation suites. Picture bodies are tested directly too: Prism corrupts binary bodies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPicture } from '../../src/pictures/pictures.js';
import { registerGame } from '../../src/games/games.js';
import { makeClient, makeCode, makeUser, signedInAgent, startServer, type TestServer } from '../helpers.js';
import { startPrism, type Prism } from './prism.js';
import sharp from 'sharp';

let t: TestServer;
let prism: Prism;

beforeAll(async () => {
  t = await startServer();
  prism = await startPrism(['proxy', 'openapi.yaml', t.baseUrl, '--errors']);
});
afterAll(async () => {
  await prism?.stop();
  await t?.close();
});

async function through(pathAndQuery: string, init?: RequestInit): Promise<{ status: number; body: unknown; headers: Headers }> {
  const res = await fetch(`${prism.url}${pathAndQuery}`, { redirect: 'manual', ...init });
  const text = await res.text();
  expect(res.headers.get('sl-violations'), `contract violations: ${res.headers.get('sl-violations')}`).toBeNull();
  expect(res.status, `Prism reported: ${text}`).not.toBe(500);
  const json = (res.headers.get('content-type') ?? '').startsWith('application/json');
  return { status: res.status, body: text && json ? JSON.parse(text) : text || undefined, headers: res.headers };
}

/** A signed-in session: its cookies and CSRF token, for requests sent through Prism. */
async function session(): Promise<{ user: { id: number; name: string; email: string }; json: (method: string, body?: unknown) => RequestInit }> {
  const { agent, user } = await signedInAgent(t);
  const csrf = await agent.csrf();
  const cookie = agent.cookieHeader();
  return {
    user,
    json: (method, body) => ({
      method,
      headers: { Cookie: cookie, 'X-CSRF-Token': csrf, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  };
}

function form(params: Record<string, string>): RequestInit {
  return {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params).toString(),
  };
}

async function setup(scope = 'userinfo email') {
  const user = await makeUser(t);
  const client = await makeClient(t, user.id);
  const code = await makeCode(t, { userId: user.id, clientId: client.clientId, scope });
  return { user, client, code };
}

describe('through the Prism proxy, responses match the contract', () => {
  it('healthz 200', async () => {
    expect(await through('/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
  });

  it('token exchange 200, then 400 for the replay, and whois 401 for the revoked token', async () => {
    const { client, code } = await setup();
    const params = { grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: client.clientSecret };
    const ok = await through('/api/oauth/token', form(params));
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 600 });
    const replay = await through('/api/oauth/token', form(params));
    expect(replay).toMatchObject({ status: 400, body: { message: 'Authorization code has already been used; tokens issued from it are revoked' } });
    const token = (ok.body as { access_token: string }).access_token;
    const revoked = await through('/api/oauth/whois', { headers: { Authorization: `Bearer ${token}` } });
    expect(revoked).toMatchObject({ status: 401, body: { message: 'Access token has been revoked' } });
  });

  it('token exchange with HTTP Basic client authentication 200', async () => {
    const { client, code } = await setup();
    const basic = Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64');
    const res = await through('/api/oauth/token', {
      ...form({ grant_type: 'authorization_code', code }),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: `Basic ${basic}` },
    });
    expect(res.status).toBe(200);
  });

  it('token exchange 400 and 401 errors', async () => {
    const { client, code } = await setup();
    const base = { grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: client.clientSecret };
    expect(await through('/api/oauth/token', form({ ...base, code: 'not-a-code' }))).toMatchObject({
      status: 400,
      body: { message: 'Invalid authorization code' },
    });
    expect(await through('/api/oauth/token', form({ ...base, grant_type: 'password' }))).toMatchObject({
      status: 400,
      body: { message: 'Unsupported grant_type: only authorization_code is supported' },
    });
    expect(await through('/api/oauth/token', form({ ...base, client_id: 'nobody' }))).toMatchObject({
      status: 401,
      body: { message: 'Unknown client' },
    });
    expect(await through('/api/oauth/token', form({ ...base, client_secret: 'wrong' }))).toMatchObject({
      status: 401,
      body: { message: 'Invalid client secret' },
    });
    t.clock.advance(5 * 60 * 1000);
    expect(await through('/api/oauth/token', form(base))).toMatchObject({
      status: 400,
      body: { message: 'Authorization code has expired' },
    });
  });

  it('whois 200 with and without email, 401 and 403', async () => {
    for (const scope of ['userinfo email', 'userinfo', '']) {
      const { user, client, code } = await setup(scope);
      const ok = await through(
        '/api/oauth/token',
        form({ grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: client.clientSecret }),
      );
      const token = (ok.body as { access_token: string }).access_token;
      const whois = await through('/api/oauth/whois', { headers: { Authorization: `Bearer ${token}` } });
      if (scope === '') {
        expect(whois).toMatchObject({ status: 403, body: { message: 'Access token lacks the userinfo scope' } });
      } else {
        expect(whois.status).toBe(200);
        expect(whois.body).toEqual(scope.includes('email') ? { id: user.id, name: user.name, email: user.email } : { id: user.id, name: user.name });
      }
    }
    const unknown = await through('/api/oauth/whois', { headers: { Authorization: 'Bearer unknown-token' } });
    expect(unknown).toMatchObject({ status: 401, body: { message: 'Invalid access token' } });
  });

  it('users/info 200 with and without a picture, 400 and 404', async () => {
    const user = await makeUser(t);
    const plain = await through(`/api/users/info?id=${user.id}`);
    expect(plain.status).toBe(200);
    expect(plain.body).toMatchObject({ message: 'yes', user: { id: user.id, name: user.name } });
    const png = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#3366cc' } }).png().toBuffer();
    const ts = await setPicture(t.app.deps, user.id, png);
    const withPicture = await through(`/api/users/info?id=${user.id}`);
    expect((withPicture.body as { user: { pfpTimestamp: number } }).user.pfpTimestamp).toBe(ts);
    expect(await through('/api/users/info?id=999999')).toMatchObject({ status: 404, body: { message: 'User not found' } });
    // The plain-digits rule is the contract's own (the Id schema's pattern): Prism refuses the
    // request before it reaches the service (422, the request breaks the contract), as the service does (400).
    expect((await through('/api/users/info?id=1e3')).status).toBe(422);
    expect(await through('/api/users/info?id=0')).toMatchObject({ status: 422 });
  });

  it('picture 404 is a JSON error that matches the contract', async () => {
    const user = await makeUser(t);
    expect(await through(`/pfp/large/${user.id}-123.webp`)).toMatchObject({
      status: 404,
      body: { message: 'Profile picture not found' },
    });
  });

  it('the published contract, the docs page and its assets match the contract', async () => {
    for (const [route, type] of [
      ['/openapi.yaml', 'application/yaml'],
      ['/openapi.json', 'application/json'],
      ['/docs', 'text/html'],
      ['/docs/assets/redoc.standalone.js', 'application/javascript'],
      ['/docs/assets/redoc.standalone.js.LICENSE.txt', 'text/plain'],
    ] as const) {
      const res = await fetch(`${prism.url}${route}`);
      const text = await res.text();
      expect(res.headers.get('sl-violations'), `${route}: ${res.headers.get('sl-violations')}`).toBeNull();
      expect(res.status, `${route}: ${text.slice(0, 500)}`).toBe(200);
      expect(res.headers.get('content-type')).toMatch(new RegExp(`^${type}`));
    }
  });

  it('session 200 for a visitor and a signed-in user; account 200, 401, 403', async () => {
    expect(await through('/api/session')).toMatchObject({ status: 200, body: { signed_in: false } });
    const { user, json } = await session();
    expect(await through('/api/session', json('GET'))).toMatchObject({ status: 200, body: { signed_in: true, user: { id: user.id, name: user.name } } });
    expect(await through('/api/account', json('GET'))).toMatchObject({ status: 200, body: { email: user.email, user: { id: user.id } } });
    expect(await through('/api/account', { headers: { Cookie: 'idp.sid=nobody' } })).toMatchObject({ status: 401, body: { message: 'Sign in first' } });
    const patched = await through('/api/account', json('PATCH', { bio: 'through Prism' }));
    expect(patched).toMatchObject({ status: 200, body: { user: { bio: 'through Prism' } } });
    expect(await through('/api/account', json('PATCH', { equippedFlair: 'gold' }))).toMatchObject({ status: 400, body: { message: 'The user does not own the flair "gold"' } });
    const forged = json('PATCH', { bio: 'x' });
    (forged.headers as Record<string, string>)['X-CSRF-Token'] = 'forged';
    expect(await through('/api/account', forged)).toMatchObject({ status: 403, body: { message: 'Invalid CSRF token' } });
  });

  it('picture removal 200 and heartbeat 200 (the upload itself is tested directly: Prism mangles binary bodies)', async () => {
    const { json } = await session();
    expect(await through('/api/account/picture', json('DELETE'))).toMatchObject({ status: 200, body: { user: { bio: '' } } });
    expect(await through('/api/account/heartbeat', json('POST'))).toMatchObject({ status: 200, body: { addedMinutes: 0, playMinutes: 0 } });
  });

  it('apps: register 201, list 200, update 200/400, rotate 200, delete 204, then 404', async () => {
    const { json } = await session();
    const created = await through('/api/apps', json('POST', { name: 'Prism App', redirect_uris: ['https://prism.example/cb'] }));
    expect(created.status).toBe(201);
    const clientId = (created.body as { client_id: string }).client_id;
    expect(await through('/api/apps', json('POST', { name: 'Bad', redirect_uris: ['http://prism.example/cb'] }))).toMatchObject({ status: 400 });
    expect(await through(`/api/apps/${clientId}`, json('PATCH', { name: 'Prism App 2' }))).toMatchObject({ status: 200, body: { client_id: clientId, name: 'Prism App 2' } });
    expect(await through(`/api/apps/${clientId}`, json('PATCH', { redirect_uris: ['http://prism.example/cb'] }))).toMatchObject({ status: 400 });
    expect(await through(`/api/apps/${clientId}`, json('PATCH', { name: 'Prism App' }))).toMatchObject({ status: 200 });
    expect(await through('/api/apps', json('GET'))).toMatchObject({ status: 200, body: { apps: [{ client_id: clientId, name: 'Prism App' }] } });
    expect(await through(`/api/apps/${clientId}/secret`, json('POST'))).toMatchObject({ status: 200, body: { client_id: clientId } });
    expect((await through(`/api/apps/${clientId}`, json('DELETE'))).status).toBe(204);
    expect(await through(`/api/apps/${clientId}/secret`, json('POST'))).toMatchObject({ status: 404, body: { message: 'App not found' } });
    expect(await through(`/api/apps/${clientId}`, json('DELETE'))).toMatchObject({ status: 404, body: { message: 'App not found' } });
    expect(await through(`/api/apps/${clientId}`, json('PATCH', { name: 'Gone' }))).toMatchObject({ status: 404, body: { message: 'App not found' } });
  });

  it('games: register 201, list 200, game app 200/403/404, game code 200/400/403', async () => {
    const { user, json } = await session();
    const created = await through('/api/games', json('POST', { title: 'Prism Game', url: 'https://game.example/' }));
    expect(created.status).toBe(201);
    const gameId = (created.body as { id: number }).id;
    expect((await through('/api/games')).body).toMatchObject({ games: [{ id: gameId, author: { id: user.id } }] });
    expect(await through('/api/games', json('POST', { title: '', url: 'https://game.example/' }))).toMatchObject({ status: 400 });
    const own = await makeClient(t, user.id);
    const stranger = await makeClient(t, (await makeUser(t)).id);
    expect(await through(`/api/games/${gameId}/apps/${own.clientId}`)).toMatchObject({ status: 200, body: { client_id: own.clientId, owner: { id: user.id } } });
    expect(await through(`/api/games/${gameId}/apps/${stranger.clientId}`)).toMatchObject({ status: 403 });
    expect(await through(`/api/games/${gameId}/apps/unknown`)).toMatchObject({ status: 404, body: { message: 'App not found' } });
    expect(await through(`/api/games/${gameId}/codes`, json('POST', { client_id: own.clientId, scopes: ['userinfo'] }))).toMatchObject({ status: 200, body: { code: expect.any(String) } });
    expect(await through(`/api/games/${gameId}/codes`, json('POST', { client_id: own.clientId, scopes: ['email'] }))).toMatchObject({ status: 400 });
    expect(await through(`/api/games/${gameId}/codes`, json('POST', { client_id: stranger.clientId, scopes: ['userinfo'] }))).toMatchObject({ status: 403 });
    expect(await through(`/api/games/${gameId}`, json('PATCH', { title: 'Prism Game 2' }))).toMatchObject({ status: 200, body: { id: gameId, title: 'Prism Game 2' } });
    expect(await through(`/api/games/${gameId}`, json('PATCH', { url: 'http://game.example/' }))).toMatchObject({ status: 400 });
    expect((await through(`/api/games/${gameId}`, json('DELETE'))).status).toBe(204);
    expect(await through(`/api/games/${gameId}`, json('DELETE'))).toMatchObject({ status: 404, body: { message: 'Game not found' } });
    expect(await through(`/api/games/${gameId}`, json('PATCH', { title: 'Gone' }))).toMatchObject({ status: 404, body: { message: 'Game not found' } });
  });

  // Prism's proxy follows redirects itself, so the pages' 302/303 answers are tested directly.
  it('pages answer as declared: HTML 200, HTML error pages, assets', async () => {
    const author = await makeUser(t);
    const client = await makeClient(t, author.id);
    const game = await registerGame({ store: t.store, now: t.clock.now }, { authorId: author.id, title: 'G', url: 'https://game.example/' });
    for (const page of ['/', '/signin', '/signup', '/games', `/play/${game.id}`]) {
      const res = await through(page);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    }
    expect((await through('/play/999999')).status).toBe(404);
    expect((await through('/assets/play.js')).status).toBe(200);
    expect((await through('/assets/nope.js')).status).toBe(404);
    const unregistered = new URLSearchParams({ client_id: client.clientId, redirect_uri: 'https://evil.example/cb', scope: 'userinfo' });
    expect((await through(`/oauth?${unregistered}`)).status).toBe(400);
    expect((await through('/oauth?client_id=unknown')).status).toBe(400);
  });
});
