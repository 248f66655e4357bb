import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClient, makeCode, makeToken, makeUser, oauthErrorBody, startServer, tokenRequest, type TestServer } from '../helpers.js';

let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(async () => t.close());

function whois(authorization?: string, extra: Record<string, string> = {}): Promise<Response> {
  const headers: Record<string, string> = { ...extra };
  if (authorization !== undefined) headers.Authorization = authorization;
  return fetch(`${t.baseUrl}/api/oauth/whois`, { headers });
}

/** Asserts a 401 with the exact body and a Bearer challenge. */
async function expect401(res: Response, message: string): Promise<string> {
  expect(res.status).toBe(401);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const challenge = res.headers.get('www-authenticate');
  expect(challenge).not.toBeNull();
  expect(challenge!.startsWith('Bearer')).toBe(true);
  expect(await res.json()).toEqual({ message });
  return challenge!;
}

describe('GET /api/oauth/whois: success', () => {
  it('with the userinfo scope only: exactly {id, name}, no email, no pfpTimestamp key', async () => {
    const { user, token } = await makeToken(t, 'userinfo');
    const res = await whois(`Bearer ${token}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toEqual({ id: user.id, name: user.name });
    expect(Object.keys(body).sort()).toEqual(['id', 'name']);
  });

  it("with 'userinfo email': includes the email", async () => {
    const { user, token } = await makeToken(t, 'userinfo email');
    const res = await whois(`Bearer ${token}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toEqual({ id: user.id, name: user.name, email: user.email });
    expect(Object.keys(body).sort()).toEqual(['email', 'id', 'name']);
  });

  it('includes pfpTimestamp when the user has one', async () => {
    const { user, token } = await makeToken(t, 'userinfo');
    expect(await t.store.users.swapPfpTimestamp(user.id, null, 1733707565493)).toBe(true);
    const res = await whois(`Bearer ${token}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({ id: user.id, name: user.name, pfpTimestamp: 1733707565493 });
  });

  it('includes pfpTimestamp and email together', async () => {
    const { user, token } = await makeToken(t, 'userinfo email');
    expect(await t.store.users.swapPfpTimestamp(user.id, null, 1733707565493)).toBe(true);
    const res = await whois(`Bearer ${token}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: user.id, name: user.name, pfpTimestamp: 1733707565493, email: user.email });
  });

  it('a profile picture change is visible on the very next call', async () => {
    const { user, token } = await makeToken(t, 'userinfo');
    const first = await whois(`Bearer ${token}`);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ id: user.id, name: user.name });

    expect(await t.store.users.swapPfpTimestamp(user.id, null, 1733707565493)).toBe(true);
    const second = await whois(`Bearer ${token}`);
    expect(second.status).toBe(200);
    expect(second.headers.get('cache-control')).toBe('no-store');
    expect(await second.json()).toEqual({ id: user.id, name: user.name, pfpTimestamp: 1733707565493 });

    expect(await t.store.users.swapPfpTimestamp(user.id, 1733707565493, 1733707600000)).toBe(true);
    const third = await whois(`Bearer ${token}`);
    expect(third.status).toBe(200);
    expect(await third.json()).toEqual({ id: user.id, name: user.name, pfpTimestamp: 1733707600000 });

    expect(await t.store.users.swapPfpTimestamp(user.id, 1733707600000, null)).toBe(true);
    const fourth = await whois(`Bearer ${token}`);
    expect(fourth.status).toBe(200);
    const body = (await fourth.json()) as Record<string, unknown>;
    expect(body).toEqual({ id: user.id, name: user.name });
    expect(Object.keys(body).sort()).toEqual(['id', 'name']);
  });

  it("accepts the lowercase scheme 'bearer <token>' (RFC 6750 scheme names are case-insensitive)", async () => {
    const { user, token } = await makeToken(t, 'userinfo');
    const res = await whois(`bearer ${token}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({ id: user.id, name: user.name });
  });
});

describe('GET /api/oauth/whois: 401', () => {
  it('missing Authorization header', async () => {
    const res = await whois();
    await expect401(res, 'Missing Authorization header');
  });

  it.each([
    ['Basic abc'],
    ['Bearer'],
    ['Bearer '],
    ['Token abc'],
    ['Bearer a b'],
  ])('malformed header %j', async (header) => {
    const res = await whois(header);
    await expect401(res, 'Authorization header must be "Bearer <access token>"');
  });

  it('a token-shaped but unknown token', async () => {
    const res = await whois('Bearer AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    const challenge = await expect401(res, 'Invalid access token');
    expect(challenge).toContain('invalid_token');
  });

  it('an expired token: valid at 599_999 ms, expired at 600_000 ms', async () => {
    const { user, token } = await makeToken(t, 'userinfo');
    t.clock.advance(599_999);
    const still = await whois(`Bearer ${token}`);
    expect(still.status).toBe(200);
    expect(still.headers.get('cache-control')).toBe('no-store');
    expect(await still.json()).toEqual({ id: user.id, name: user.name });

    t.clock.advance(1);
    const res = await whois(`Bearer ${token}`);
    const challenge = await expect401(res, 'Access token has expired');
    expect(challenge).toContain('invalid_token');
  });

  it('a token revoked by a second redemption of its code', async () => {
    const user = await makeUser(t);
    const client = await makeClient(t, user.id);
    const code = await makeCode(t, { userId: user.id, clientId: client.clientId, scope: 'userinfo' });
    const params = { grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: client.clientSecret };

    const first = await tokenRequest(t, params);
    expect(first.status).toBe(200);
    const { access_token: token } = (await first.json()) as { access_token: string };

    const before = await whois(`Bearer ${token}`);
    expect(before.status).toBe(200);
    expect(await before.json()).toEqual({ id: user.id, name: user.name });

    const second = await tokenRequest(t, params);
    expect(second.status).toBe(400);
    expect(await second.json()).toEqual(oauthErrorBody('invalid_grant', 'Authorization code has already been used; tokens issued from it are revoked'));

    const res = await whois(`Bearer ${token}`);
    const challenge = await expect401(res, 'Access token has been revoked');
    expect(challenge).toContain('invalid_token');
  });
});

describe('GET /api/oauth/whois: 403', () => {
  it("a token issued with scope '' lacks userinfo", async () => {
    const { token } = await makeToken(t, '');
    const res = await whois(`Bearer ${token}`);
    expect(res.status).toBe(403);
    const challenge = res.headers.get('www-authenticate');
    expect(challenge).not.toBeNull();
    expect(challenge!.startsWith('Bearer')).toBe(true);
    expect(challenge).toContain('insufficient_scope');
    expect(await res.json()).toEqual({ message: 'Access token lacks the userinfo scope' });
  });
});

describe('CORS', () => {
  // x-cors: client: only a public app's origins read a success (test/oauth/public-clients.test.ts).
  it("whois sends no Access-Control-Allow-Origin for a confidential app's token", async () => {
    const { user, token } = await makeToken(t, 'userinfo');
    const res = await whois(`Bearer ${token}`, { Origin: 'https://game.example' });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(await res.json()).toEqual({ id: user.id, name: user.name });
  });

  it('whois errors are readable from any origin (no data, no credentials)', async () => {
    const res = await whois(undefined, { Origin: 'https://game.example' });
    expect(res.headers.get('access-control-allow-origin')).toBe('https://game.example');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    await expect401(res, 'Missing Authorization header');
  });

  it("the token endpoint sends no Access-Control-Allow-Origin for a confidential app's success", async () => {
    const user = await makeUser(t);
    const client = await makeClient(t, user.id);
    const code = await makeCode(t, { userId: user.id, clientId: client.clientId, scope: 'userinfo' });
    const res = await tokenRequest(
      t,
      { grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: client.clientSecret },
      { Origin: 'https://evil.example' },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
    const body = (await res.json()) as { access_token: string };
    expect(body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 600 });
    expect(body.access_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
