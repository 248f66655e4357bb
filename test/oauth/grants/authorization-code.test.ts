/** POST /api/oauth/token: the authorization_code grant, against the real app (docs/decisions.md#token-endpoint). */
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  makeClient,
  makeCode,
  makeUser,
  oauthErrorBody,
  startServer,
  tokenRequest,
  type TestClient,
  type TestServer,
} from '../../helpers.js';

let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(async () => t.close());

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;
const CODE_TTL_MS = 5 * 60 * 1000;
const TOKEN_TTL_MS = 600_000;

const MSG = {
  grantType: 'Unsupported grant_type: only authorization_code is supported',
  unknownClient: 'Unknown client',
  wrongSecret: 'Invalid client secret',
  invalidCode: 'Invalid authorization code',
  expiredCode: 'Authorization code has expired',
  usedCode: 'Authorization code has already been used; tokens issued from it are revoked',
  verifierRequired: 'code_verifier is required for this code',
  verifierMismatch: 'code_verifier does not match the code_challenge',
  pkceDowngrade: 'code_verifier was sent, but this code was issued without a code_challenge',
  revoked: 'Access token has been revoked',
  expiredToken: 'Access token has expired',
  tooLarge: 'Request body is too large',
  badJson: 'Request body is not valid JSON',
} as const;

function successBody(): Record<string, unknown> {
  return { access_token: expect.stringMatching(TOKEN_SHAPE), token_type: 'Bearer', expires_in: 600 };
}

interface Setup {
  client: TestClient;
  userId: number;
  code: string;
  /** The four parameters of the interface, with body credentials. */
  params: Record<string, string>;
}

/** A fresh user, app and code, so tests never share state. */
async function setup(codeOptions: { redirectUri?: string | null; codeChallenge?: string | null; scope?: string } = {}): Promise<Setup> {
  const user = await makeUser(t);
  const client = await makeClient(t, user.id);
  const code = await makeCode(t, { userId: user.id, clientId: client.clientId, ...codeOptions });
  return {
    client,
    userId: user.id,
    code,
    params: { grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: client.clientSecret },
  };
}

function basic(clientId: string, clientSecret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`, 'utf8').toString('base64')}`;
}

function form(params: Record<string, string>): string {
  return new URLSearchParams(params).toString();
}

/** POST with a raw body and exactly the given headers (fetch adds no Content-Type for a Uint8Array). */
function rawPost(body: string | Uint8Array, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${t.baseUrl}/api/oauth/token`, { method: 'POST', headers, body });
}

function whois(token: string): Promise<Response> {
  return fetch(`${t.baseUrl}/api/oauth/whois`, { headers: { Authorization: `Bearer ${token}` } });
}

async function expectSuccess(res: Response): Promise<string> {
  const body = (await res.json()) as Record<string, unknown>;
  expect(res.status, JSON.stringify(body)).toBe(200);
  expect(body).toEqual(successBody());
  expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'token_type']);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return body.access_token as string;
}

async function expectError(res: Response, status: number, message: string): Promise<void> {
  const body: unknown = await res.json();
  expect({ status: res.status, body }).toEqual({ status, body: { message } });
}

/** The token endpoint's errors: the seed's `message`, and RFC 6749 5.2's `error` beside it. */
async function expectOAuthError(res: Response, status: number, error: string, message: string): Promise<void> {
  const body: unknown = await res.json();
  expect({ status: res.status, body }).toEqual({ status, body: oauthErrorBody(error, message) });
}

function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(48).toString('base64url'); // 64 characters, within 43..128
  return { verifier, challenge: createHash('sha256').update(verifier, 'ascii').digest('base64url') };
}

describe('POST /api/oauth/token: success', () => {
  it('exchanges a code with client_id and client_secret in the body for a Bearer token of 600 seconds', async () => {
    const s = await setup();
    const res = await tokenRequest(t, s.params);
    const token = await expectSuccess(res);
    const who = await whois(token);
    expect(who.status).toBe(200);
    expect(((await who.json()) as { id: number }).id).toBe(s.userId);
  });

  it('marks the token response uncacheable: Cache-Control no-store and Pragma no-cache', async () => {
    const s = await setup();
    const res = await tokenRequest(t, s.params);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
    await expectSuccess(res);
  });

  it("sends no Access-Control-Allow-Origin on a confidential app's success, even when the request carries an Origin", async () => {
    const s = await setup();
    const res = await tokenRequest(t, s.params, { Origin: 'https://client.example' });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    await expectSuccess(res);
  });

  // x-cors: client (docs/decisions.md#cors; the public-client cases are in public-clients.test.ts beside this file).
  it('lets any origin read an error (no data in it, no credentials)', async () => {
    const s = await setup();
    const res = await tokenRequest(t, { ...s.params, client_secret: 'wrong' }, { Origin: 'https://evil.example' });
    expect(res.headers.get('access-control-allow-origin')).toBe('https://evil.example');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(res.headers.get('vary')).toBe('Origin');
    await expectOAuthError(res, 401, 'invalid_client', MSG.wrongSecret);
  });

  it('answers a CORS preflight from any origin: POST, Authorization and Content-Type, 600 s, no credentials', async () => {
    const res = await fetch(`${t.baseUrl}/api/oauth/token`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://evil.example');
    expect(res.headers.get('access-control-allow-methods')).toBe('POST');
    expect(res.headers.get('access-control-allow-headers')).toBe('Authorization,Content-Type');
    expect(res.headers.get('access-control-max-age')).toBe('600');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('issues a different token for each code', async () => {
    const a = await setup();
    const b = await setup();
    const tokenA = await expectSuccess(await tokenRequest(t, a.params));
    const tokenB = await expectSuccess(await tokenRequest(t, b.params));
    expect(tokenA).not.toBe(tokenB);
  });
});

describe('POST /api/oauth/token: body parsing whatever the Content-Type', () => {
  it('parses application/x-www-form-urlencoded', async () => {
    const s = await setup();
    await expectSuccess(await rawPost(form(s.params), { 'Content-Type': 'application/x-www-form-urlencoded' }));
  });

  it('parses application/x-www-form-urlencoded with a charset parameter', async () => {
    const s = await setup();
    await expectSuccess(await rawPost(form(s.params), { 'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8' }));
  });

  it('parses a form sent in chunks, with no Content-Length', async () => {
    const s = await setup();
    const bytes = new TextEncoder().encode(form(s.params));
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.subarray(0, 10));
        controller.enqueue(bytes.subarray(10));
        controller.close();
      },
    });
    const res = await fetch(`${t.baseUrl}/api/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body,
      duplex: 'half',
    });
    await expectSuccess(res);
  });

  it('parses a gzip-compressed form (Content-Encoding: gzip)', async () => {
    const s = await setup();
    await expectSuccess(await rawPost(gzipSync(form(s.params)), { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Encoding': 'gzip' }));
  });

  it('parses a URL-encoded form sent as text/plain', async () => {
    const s = await setup();
    await expectSuccess(await rawPost(form(s.params), { 'Content-Type': 'text/plain' }));
  });

  it('parses a URL-encoded form sent with no Content-Type header at all', async () => {
    // First prove that this way of sending really sends no Content-Type: an echo server sees the headers.
    const seen: http.IncomingHttpHeaders[] = [];
    const echo = http.createServer((req, res) => {
      seen.push(req.headers);
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', () => resolve()));
    const s = await setup();
    const bytes = new TextEncoder().encode(form(s.params));
    try {
      const { port } = echo.address() as AddressInfo;
      const probe = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: bytes });
      await probe.text();
    } finally {
      echo.closeAllConnections();
      await new Promise<void>((resolve) => echo.close(() => resolve()));
    }
    expect(seen).toHaveLength(1);
    expect(seen[0]!['content-type']).toBeUndefined();
    expect(seen[0]!['content-length']).toBe(String(bytes.byteLength));

    await expectSuccess(await rawPost(bytes));
  });

  it('parses a URL-encoded form with no Content-Type sent through node:http', async () => {
    const s = await setup();
    const payload = Buffer.from(form(s.params), 'utf8');
    const { status, headers, text } = await new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>(
      (resolve, reject) => {
        const req = http.request(`${t.baseUrl}/api/oauth/token`, {
          method: 'POST',
          headers: { 'Content-Length': String(payload.length) },
        });
        expect(req.getHeader('content-type')).toBeUndefined();
        req.on('response', (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end(payload);
      },
    );
    expect(status).toBe(200);
    expect(headers['cache-control']).toBe('no-store');
    expect(JSON.parse(text)).toEqual(successBody());
  });

  it('parses a form sent as a plain fetch string (text/plain;charset=UTF-8, fetch\'s default)', async () => {
    const s = await setup();
    await expectSuccess(await rawPost(form(s.params)));
  });

  it('accepts a JSON object body', async () => {
    const s = await setup();
    await expectSuccess(await rawPost(JSON.stringify(s.params), { 'Content-Type': 'application/json' }));
  });

  it('accepts a JSON object body with a charset parameter', async () => {
    const s = await setup();
    await expectSuccess(await rawPost(JSON.stringify(s.params), { 'Content-Type': 'application/json; charset=utf-8' }));
  });

  it('ignores unknown extra parameters', async () => {
    const s = await setup();
    await expectSuccess(await tokenRequest(t, { ...s.params, scope: 'userinfo email', state: 'xyz' }));
  });

  it('refuses application/xml with 415', async () => {
    const s = await setup();
    const res = await rawPost(form(s.params), { 'Content-Type': 'application/xml' });
    await expectOAuthError(res, 415, 'invalid_request', 'Unsupported Content-Type: application/xml');
  });

  it('refuses a parameter sent twice with 400', async () => {
    const s = await setup();
    const body = `${form(s.params)}&code=${encodeURIComponent(s.code)}`;
    await expectOAuthError(await rawPost(body, { 'Content-Type': 'application/x-www-form-urlencoded' }), 400, 'invalid_request', 'Parameter code is repeated');
  });

  it('refuses malformed JSON sent as application/json with 400', async () => {
    await expectOAuthError(await rawPost('{"grant_type": "authorization_code", ', { 'Content-Type': 'application/json' }), 400, 'invalid_request', MSG.badJson);
  });

  // The limit is the largest body the schema allows (97 KiB here; test/http/request-limits.test.ts).
  it('refuses a body over its limit with 413', async () => {
    const s = await setup();
    const body = form({ ...s.params, padding: 'x'.repeat(100 * 1024) });
    await expectOAuthError(await rawPost(body, { 'Content-Type': 'application/x-www-form-urlencoded' }), 413, 'invalid_request', MSG.tooLarge);
  });

  it('refuses a JSON body whose code is a number with 400 and a message', async () => {
    const s = await setup();
    const res = await rawPost(JSON.stringify({ ...s.params, code: 12345 }), { 'Content-Type': 'application/json' });
    await expectOAuthError(res, 400, 'invalid_request', 'Body field code must be string');
  });

  it('refuses a JSON body over its limit with 413', async () => {
    const s = await setup();
    const body = JSON.stringify({ ...s.params, padding: 'x'.repeat(100 * 1024) });
    await expectOAuthError(await rawPost(body, { 'Content-Type': 'application/json' }), 413, 'invalid_request', MSG.tooLarge);
  });

  it('accepts a body of exactly 16 kB', async () => {
    const s = await setup();
    const base = `${form(s.params)}&padding=`;
    const body = base + 'x'.repeat(16 * 1024 - base.length);
    expect(Buffer.byteLength(body)).toBe(16 * 1024);
    await expectSuccess(await rawPost(body, { 'Content-Type': 'application/x-www-form-urlencoded' }));
  });

  it('refuses an empty body with 400', async () => {
    await expectOAuthError(await rawPost('', { 'Content-Type': 'application/x-www-form-urlencoded' }), 400, 'invalid_request', 'Request body is required');
  });
});

describe('POST /api/oauth/token: client authentication', () => {
  it('accepts HTTP Basic client credentials (form-encoded id:secret, base64)', async () => {
    const s = await setup();
    const res = await tokenRequest(t, { grant_type: 'authorization_code', code: s.code }, {
      Authorization: basic(s.client.clientId, s.client.clientSecret),
    });
    await expectSuccess(res);
  });

  it('accepts HTTP Basic credentials with a matching client_id also in the body', async () => {
    const s = await setup();
    const res = await tokenRequest(t, { grant_type: 'authorization_code', code: s.code, client_id: s.client.clientId }, {
      Authorization: basic(s.client.clientId, s.client.clientSecret),
    });
    await expectSuccess(res);
  });

  it('answers HTTP Basic with a wrong secret with 401 and a Basic challenge', async () => {
    const s = await setup();
    const res = await tokenRequest(t, { grant_type: 'authorization_code', code: s.code }, {
      Authorization: basic(s.client.clientId, 'not-the-secret'),
    });
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm="oauth"/);
    await expectOAuthError(res, 401, 'invalid_client', MSG.wrongSecret);
  });

  it('answers HTTP Basic with an unknown client id with 401 and a Basic challenge', async () => {
    const s = await setup();
    const res = await tokenRequest(t, { grant_type: 'authorization_code', code: s.code }, {
      Authorization: basic('NoSuchApp00', s.client.clientSecret),
    });
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm="oauth"/);
    await expectOAuthError(res, 401, 'invalid_client', MSG.unknownClient);
  });

  it('refuses HTTP Basic with a different client_id in the body with 400', async () => {
    const s = await setup();
    const res = await tokenRequest(t, { grant_type: 'authorization_code', code: s.code, client_id: 'NoSuchApp00' }, {
      Authorization: basic(s.client.clientId, s.client.clientSecret),
    });
    await expectOAuthError(res, 400, 'invalid_request', 'client_id in the body does not match the Authorization header');
  });

  it('answers a non-Basic Authorization header with 401 and a Basic challenge', async () => {
    const s = await setup();
    const res = await tokenRequest(t, s.params, { Authorization: 'Bearer something' });
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm="oauth"/);
    await expectOAuthError(res, 401, 'invalid_client', 'Authorization header must be HTTP Basic client credentials');
  });

  it('refuses HTTP Basic together with client_secret in the body with 400', async () => {
    const s = await setup();
    const res = await tokenRequest(t, s.params, { Authorization: basic(s.client.clientId, s.client.clientSecret) });
    await expectOAuthError(res, 400, 'invalid_request', 'Send client credentials either in the Authorization header or in the body, not both');
  });

  it('answers a request without any client credentials with 401', async () => {
    const s = await setup();
    const res = await tokenRequest(t, { grant_type: 'authorization_code', code: s.code });
    await expectOAuthError(res, 401, 'invalid_client', 'Client authentication is required: send client_id and client_secret');
  });

  it('answers client_id without client_secret with 401', async () => {
    const s = await setup();
    const res = await tokenRequest(t, { grant_type: 'authorization_code', code: s.code, client_id: s.client.clientId });
    await expectOAuthError(res, 401, 'invalid_client', 'client_secret is required');
  });

  it('answers an unknown client with 401 Unknown client', async () => {
    const s = await setup();
    const res = await tokenRequest(t, { ...s.params, client_id: 'NoSuchApp00' });
    await expectOAuthError(res, 401, 'invalid_client', MSG.unknownClient);
  });

  it('answers a wrong client secret with 401 Invalid client secret', async () => {
    const s = await setup();
    const res = await tokenRequest(t, { ...s.params, client_secret: randomBytes(32).toString('base64url') });
    await expectOAuthError(res, 401, 'invalid_client', MSG.wrongSecret);
  });

  it('does not consume the code when client authentication fails', async () => {
    const s = await setup();
    await expectOAuthError(await tokenRequest(t, { ...s.params, client_secret: 'wrong' }), 401, 'invalid_client', MSG.wrongSecret);
    await expectSuccess(await tokenRequest(t, s.params));
  });
});

describe('POST /api/oauth/token: grant_type and code', () => {
  it('answers a missing grant_type with 400', async () => {
    const s = await setup();
    const { grant_type: _omit, ...rest } = s.params;
    await expectOAuthError(await tokenRequest(t, rest), 400, 'invalid_request', 'Body field grant_type is required');
  });

  it('answers grant_type=password with 400 unsupported grant_type', async () => {
    const s = await setup();
    const res = await tokenRequest(t, { ...s.params, grant_type: 'password' });
    await expectOAuthError(res, 400, 'unsupported_grant_type', MSG.grantType);
  });

  it('answers a missing code with 400', async () => {
    const s = await setup();
    const { code: _omit, ...rest } = s.params;
    await expectOAuthError(await tokenRequest(t, rest), 400, 'invalid_request', 'Body field code is required');
  });

  it('answers an unknown code with 400 Invalid authorization code', async () => {
    const s = await setup();
    const res = await tokenRequest(t, { ...s.params, code: randomBytes(32).toString('base64url') });
    await expectOAuthError(res, 400, 'invalid_grant', MSG.invalidCode);
  });

  it('answers a code issued to another client with 400 Invalid authorization code, and leaves it usable by its own client', async () => {
    const s = await setup();
    const other = await makeClient(t, s.userId);
    const res = await tokenRequest(t, { ...s.params, client_id: other.clientId, client_secret: other.clientSecret });
    await expectOAuthError(res, 400, 'invalid_grant', MSG.invalidCode);
    await expectSuccess(await tokenRequest(t, s.params));
  });

  it('does not consume the code when the request is refused for its grant_type', async () => {
    const s = await setup();
    await expectOAuthError(await tokenRequest(t, { ...s.params, grant_type: 'password' }), 400, 'unsupported_grant_type', MSG.grantType);
    await expectSuccess(await tokenRequest(t, s.params));
  });

  it('answers a code older than 5 minutes with 400 Authorization code has expired', async () => {
    const s = await setup();
    t.clock.advance(CODE_TTL_MS + 1);
    await expectOAuthError(await tokenRequest(t, s.params), 400, 'invalid_grant', MSG.expiredCode);
  });

  it('still accepts a code 1 ms before it expires', async () => {
    const s = await setup();
    t.clock.advance(CODE_TTL_MS - 1);
    await expectSuccess(await tokenRequest(t, s.params));
  });
});

describe('POST /api/oauth/token: single use', () => {
  it('refuses a second redemption and revokes the token of the first', async () => {
    const s = await setup();
    const token = await expectSuccess(await tokenRequest(t, s.params));
    expect((await whois(token)).status).toBe(200);

    await expectOAuthError(await tokenRequest(t, s.params), 400, 'invalid_grant', MSG.usedCode);

    const who = await whois(token);
    expect(who.headers.get('www-authenticate')).toMatch(/^Bearer /);
    await expectError(who, 401, MSG.revoked);
  });

  it('lets exactly one of 20 concurrent redemptions of one code win', async () => {
    const s = await setup();
    const responses = await Promise.all(Array.from({ length: 20 }, () => tokenRequest(t, s.params)));
    const results = await Promise.all(responses.map(async (r) => ({ status: r.status, body: (await r.json()) })));
    const winners = results.filter((r) => r.status === 200);
    const losers = results.filter((r) => r.status !== 200);
    expect(winners).toHaveLength(1);
    expect(winners[0]!.body).toEqual(successBody());
    expect(losers).toHaveLength(19);
    for (const loser of losers) expect(loser).toEqual({ status: 400, body: oauthErrorBody('invalid_grant', MSG.usedCode) });
    const tokens = await t.store.knex('access_tokens').where({ client_id: s.client.clientId });
    expect(tokens).toHaveLength(1);
  });

  it('treats the losing concurrent redemptions as replays: the winner\'s token ends up revoked', async () => {
    // docs/decisions.md#authorization-codes: a second redemption fails AND revokes every token issued from the code;
    // a concurrent loser is a second redemption (RFC 6749 4.1.2).
    const s = await setup();
    const responses = await Promise.all(Array.from({ length: 5 }, () => tokenRequest(t, s.params)));
    const bodies = await Promise.all(responses.map(async (r) => ({ status: r.status, body: (await r.json()) as { access_token?: string } })));
    const winner = bodies.find((b) => b.status === 200);
    expect(winner?.body.access_token).toMatch(TOKEN_SHAPE);
    await expectError(await whois(winner!.body.access_token!), 401, MSG.revoked);
  });
});

describe('POST /api/oauth/token: redirect_uri binding', () => {
  it('refuses a redirect_uri different from the one the code was issued for', async () => {
    const user = await makeUser(t);
    const client = await makeClient(t, user.id, ['https://client.example/callback', 'https://client.example/other']);
    const code = await makeCode(t, { userId: user.id, clientId: client.clientId, redirectUri: client.redirectUri });
    const params = { grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: client.clientSecret };
    await expectOAuthError(
      await tokenRequest(t, { ...params, redirect_uri: 'https://client.example/other' }),
      400,
      'invalid_grant',
      'redirect_uri does not match the one the code was issued for',
    );
    // A mismatch does not burn the code.
    await expectSuccess(await tokenRequest(t, { ...params, redirect_uri: client.redirectUri }));
  });

  it('accepts the same redirect_uri the code was issued for', async () => {
    const s = await setup({ redirectUri: 'https://client.example/callback' });
    expect(s.client.redirectUri).toBe('https://client.example/callback');
    await expectSuccess(await tokenRequest(t, { ...s.params, redirect_uri: s.client.redirectUri }));
  });

  it('accepts a request without redirect_uri for a code issued with one', async () => {
    const s = await setup({ redirectUri: 'https://client.example/callback' });
    await expectSuccess(await tokenRequest(t, s.params));
  });
});

describe('POST /api/oauth/token: PKCE S256', () => {
  it('requires code_verifier when the code has a challenge', async () => {
    const { challenge } = pkcePair();
    const s = await setup({ codeChallenge: challenge });
    await expectOAuthError(await tokenRequest(t, s.params), 400, 'invalid_grant', MSG.verifierRequired);
  });

  it('refuses a code_verifier that does not match the challenge', async () => {
    const { challenge } = pkcePair();
    const s = await setup({ codeChallenge: challenge });
    await expectOAuthError(await tokenRequest(t, { ...s.params, code_verifier: pkcePair().verifier }), 400, 'invalid_grant', MSG.verifierMismatch);
  });

  it('accepts the right code_verifier', async () => {
    const { verifier, challenge } = pkcePair();
    const s = await setup({ codeChallenge: challenge });
    await expectSuccess(await tokenRequest(t, { ...s.params, code_verifier: verifier }));
  });

  it('accepts a 43-character verifier (the RFC 7636 minimum)', async () => {
    const verifier = randomBytes(32).toString('base64url');
    expect(verifier).toHaveLength(43);
    const challenge = createHash('sha256').update(verifier, 'ascii').digest('base64url');
    const s = await setup({ codeChallenge: challenge });
    await expectSuccess(await tokenRequest(t, { ...s.params, code_verifier: verifier }));
  });

  it('refuses a code_verifier for a code issued without a challenge (PKCE downgrade, RFC 9700 2.1.1), without consuming the code', async () => {
    const s = await setup({ codeChallenge: null });
    await expectOAuthError(await tokenRequest(t, { ...s.params, code_verifier: pkcePair().verifier }), 400, 'invalid_grant', MSG.pkceDowngrade);
    // No token was issued and the code is still unredeemed: the same request without a verifier
    // (what the legitimate, non-PKCE client sends) still succeeds.
    const tokens = await t.store.knex('access_tokens').where({ client_id: s.client.clientId }).count({ n: '*' }).first();
    expect(Number(tokens?.n)).toBe(0);
    await expectSuccess(await tokenRequest(t, s.params));
  });

  it('does not consume the code on failed PKCE attempts', async () => {
    const { verifier, challenge } = pkcePair();
    const s = await setup({ codeChallenge: challenge });
    await expectOAuthError(await tokenRequest(t, s.params), 400, 'invalid_grant', MSG.verifierRequired);
    await expectOAuthError(await tokenRequest(t, { ...s.params, code_verifier: pkcePair().verifier }), 400, 'invalid_grant', MSG.verifierMismatch);
    await expectSuccess(await tokenRequest(t, { ...s.params, code_verifier: verifier }));
  });
});

describe('POST /api/oauth/token: storage', () => {
  it('stores only hashes of the token, the code and the client secret', async () => {
    const s = await setup();
    const token = await expectSuccess(await tokenRequest(t, s.params));
    const sha256 = (v: string): string => createHash('sha256').update(v, 'utf8').digest('hex');

    const tokens = await t.store.knex<Record<string, unknown>>('access_tokens');
    const codes = await t.store.knex<Record<string, unknown>>('auth_codes');
    const apps = await t.store.knex<Record<string, unknown>>('apps');
    const everything = JSON.stringify([tokens, codes, apps]);
    for (const secret of [token, s.code, s.client.clientSecret]) {
      expect(everything).not.toContain(secret);
    }
    for (const rows of [tokens, codes, apps]) {
      for (const row of rows) {
        for (const value of Object.values(row)) {
          const text = String(value);
          expect(text.includes(token) || text.includes(s.code) || text.includes(s.client.clientSecret)).toBe(false);
        }
      }
    }
    // What is stored is the SHA-256 of each.
    expect(tokens.some((r) => r.token_hash === sha256(token) && r.code_hash === sha256(s.code))).toBe(true);
    expect(codes.some((r) => r.code_hash === sha256(s.code))).toBe(true);
    expect(apps.some((r) => r.client_id === s.client.clientId && r.secret_hash === sha256(s.client.clientSecret))).toBe(true);
  });
});

describe('POST /api/oauth/token: token lifetime', () => {
  it('gives a token that whois still accepts 599 999 ms after issue', async () => {
    const s = await setup();
    const token = await expectSuccess(await tokenRequest(t, s.params));
    t.clock.advance(TOKEN_TTL_MS - 1);
    const who = await whois(token);
    expect(who.status).toBe(200);
    expect(((await who.json()) as { id: number }).id).toBe(s.userId);
  });

  it('gives a token that whois refuses as expired 600 000 ms after issue', async () => {
    const s = await setup();
    const token = await expectSuccess(await tokenRequest(t, s.params));
    t.clock.advance(TOKEN_TTL_MS);
    await expectError(await whois(token), 401, MSG.expiredToken);
  });
});

describe('multipart bodies', () => {
  it('refuses a multipart/form-data token request with 415', async () => {
    const form = new FormData();
    form.set('grant_type', 'authorization_code');
    form.set('code', 'x');
    const res = await fetch(`${t.baseUrl}/api/oauth/token`, { method: 'POST', body: form });
    expect(res.status).toBe(415);
    expect(await res.json()).toEqual(oauthErrorBody('invalid_request', 'Unsupported Content-Type: multipart/form-data'));
  });
});
