/** POST /api/oauth/introspect: RFC 7662, for the token's own client only; exp/iat in seconds. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClient, makeToken, makeUser, oauthErrorBody, startServer, type TestClient, type TestServer } from '../helpers.js';

let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(async () => t?.close());

function introspect(params: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${t.baseUrl}/api/oauth/introspect`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(params).toString(),
  });
}

function withCredentials(client: TestClient, token: string): Record<string, string> {
  return { token, client_id: client.clientId, client_secret: client.clientSecret };
}

async function answer(res: Response): Promise<[number, string | null, unknown]> {
  return [res.status, res.headers.get('cache-control'), await res.json()];
}

const INACTIVE = [200, 'no-store', { active: false }];

describe('introspectToken: a live token of the calling client', () => {
  it('answers every field, exp and iat in SECONDS since the epoch, sub the user id as a string', async () => {
    const issuedAt = t.clock.now();
    const { client, token, user } = await makeToken(t, 'userinfo email');
    expect(await answer(await introspect(withCredentials(client, token)))).toEqual([
      200,
      'no-store',
      {
        active: true,
        scope: 'userinfo email',
        client_id: client.clientId,
        token_type: 'Bearer',
        exp: Math.floor((issuedAt + 600_000) / 1000),
        iat: Math.floor(issuedAt / 1000),
        sub: String(user.id),
        username: user.name,
      },
    ]);
  });

  it('takes HTTP Basic client authentication; the token is still live one second before expiry', async () => {
    const { client, token } = await makeToken(t);
    const auth = `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`;
    t.clock.advance(599_000);
    try {
      const res = await introspect({ token }, { Authorization: auth });
      expect(await res.json()).toMatchObject({ active: true, scope: 'userinfo', client_id: client.clientId });
    } finally {
      t.clock.advance(-599_000);
    }
  });
});

describe('introspectToken: everything else is exactly {"active": false}', () => {
  it('unknown token', async () => {
    const { client } = await makeToken(t);
    expect(await answer(await introspect(withCredentials(client, 'y'.repeat(43))))).toEqual(INACTIVE);
  });

  it('expired token (at its expiry instant)', async () => {
    const { client, token } = await makeToken(t);
    t.clock.advance(600_000);
    try {
      expect(await answer(await introspect(withCredentials(client, token)))).toEqual(INACTIVE);
    } finally {
      t.clock.advance(-600_000);
    }
  });

  it('revoked token', async () => {
    const { client, token } = await makeToken(t);
    const revoked = await fetch(`${t.baseUrl}/api/oauth/revoke`, { method: 'POST', body: new URLSearchParams(withCredentials(client, token)) });
    expect(revoked.status).toBe(200);
    expect(await answer(await introspect(withCredentials(client, token)))).toEqual(INACTIVE);
  });

  it("another client's live token: nothing leaks", async () => {
    const { token } = await makeToken(t, 'userinfo email');
    const other = await makeClient(t, (await makeUser(t)).id);
    expect(await answer(await introspect(withCredentials(other, token)))).toEqual(INACTIVE);
  });
});

describe('introspectToken: client authentication', () => {
  it('401 for missing credentials, an unknown client or a wrong secret (no answer about the token)', async () => {
    const { client, token } = await makeToken(t);
    const cases: [Record<string, string>, string][] = [
      [{ token }, 'Client authentication is required: send client_id and client_secret'],
      [{ token, client_id: 'nobody', client_secret: 's' }, 'Unknown client'],
      [{ token, client_id: client.clientId, client_secret: 'wrong' }, 'Invalid client secret'],
    ];
    for (const [params, message] of cases) {
      const res = await introspect(params);
      expect([res.status, await res.json()]).toEqual([401, oauthErrorBody('invalid_client', message)]);
    }
  });

  it('400 for a missing token', async () => {
    const { client } = await makeToken(t);
    const res = await introspect({ client_id: client.clientId, client_secret: client.clientSecret });
    expect([res.status, await res.json()]).toEqual([400, oauthErrorBody('invalid_request', 'Body field token is required')]);
  });
});
