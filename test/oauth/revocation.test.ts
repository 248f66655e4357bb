/** POST /api/oauth/revoke: RFC 7009 token revocation, with the token endpoint's client authentication. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEvent, AuditFields } from '../../src/audit.js';
import { makeClient, makeToken, makeUser, oauthErrorBody, startServer, type TestClient, type TestServer } from '../helpers.js';

let t: TestServer;
let audited: [AuditEvent, AuditFields | undefined][];
beforeAll(async () => {
  t = await startServer();
  audited = [];
  t.app.deps.audit = (event, fields) => void audited.push([event, fields]);
});
afterAll(async () => t?.close());

const REVOKED = 'Access token has been revoked';

function basic(client: TestClient): string {
  return `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`;
}

function revoke(params: Record<string, string>, headers: Record<string, string> = {}, server = t): Promise<Response> {
  return fetch(`${server.baseUrl}/api/oauth/revoke`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(params).toString(),
  });
}

function withCredentials(client: TestClient, token: string, extra: Record<string, string> = {}): Record<string, string> {
  return { token, client_id: client.clientId, client_secret: client.clientSecret, ...extra };
}

async function whois(token: string, server = t): Promise<[number, unknown]> {
  const res = await fetch(`${server.baseUrl}/api/oauth/whois`, { headers: { Authorization: `Bearer ${token}` } });
  return [res.status, await res.json()];
}

async function expectEmpty200(res: Response): Promise<void> {
  expect(res.status).toBe(200);
  expect(res.headers.get('content-length')).toBe('0');
  expect(res.headers.get('content-type')).toBeNull();
  expect(await res.text()).toBe('');
  expect(res.headers.get('cache-control')).toBe('no-store');
}

describe('revokeToken: the client revokes its own token', () => {
  it('answers 200 with an empty body; whois then says revoked; the audit trail records it without the token', async () => {
    const { client, token, user } = await makeToken(t);
    audited.length = 0;
    await expectEmpty200(await revoke(withCredentials(client, token)));
    expect(await whois(token)).toEqual([401, { message: REVOKED }]);
    expect(audited).toEqual([['token_revoked', { userId: user.id, clientId: client.clientId, by: 'client' }]]);
    expect(JSON.stringify(audited)).not.toContain(token);
  });

  it('takes HTTP Basic client authentication, like the token endpoint', async () => {
    const { client, token } = await makeToken(t);
    await expectEmpty200(await revoke({ token }, { Authorization: basic(client) }));
    expect(await whois(token)).toEqual([401, { message: REVOKED }]);
  });

  it('ignores token_type_hint, whatever its value', async () => {
    for (const hint of ['access_token', 'refresh_token', 'nonsense']) {
      const { client, token } = await makeToken(t);
      await expectEmpty200(await revoke(withCredentials(client, token, { token_type_hint: hint })));
      expect(await whois(token)).toEqual([401, { message: REVOKED }]);
    }
  });

  it('parses the form whatever the Content-Type says, and JSON', async () => {
    const { client, token } = await makeToken(t);
    const res = await fetch(`${t.baseUrl}/api/oauth/revoke`, { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: new URLSearchParams(withCredentials(client, token)).toString() });
    await expectEmpty200(res);
    const second = await makeToken(t);
    const json = await fetch(`${t.baseUrl}/api/oauth/revoke`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(withCredentials(second.client, second.token)) });
    await expectEmpty200(json);
    expect(await whois(token)).toEqual([401, { message: REVOKED }]);
    expect(await whois(second.token)).toEqual([401, { message: REVOKED }]);
  });

  it('is revoked on every instance at once (a second instance on the same database)', async () => {
    const other = await startServerOnSameDatabase();
    try {
      const { client, token } = await makeToken(t);
      expect((await whois(token, other))[0]).toBe(200);
      await expectEmpty200(await revoke(withCredentials(client, token), {}, other));
      expect(await whois(token)).toEqual([401, { message: REVOKED }]);
      expect(await whois(token, other)).toEqual([401, { message: REVOKED }]);
    } finally {
      await other.close();
    }
  });
});

async function startServerOnSameDatabase(): Promise<TestServer> {
  const other = await startServer({ DATABASE_URL: t.config.databaseUrl });
  other.clock.t = t.clock.t;
  return other;
}

describe('revokeToken: nothing to revoke is still a 200 (RFC 7009 2.2)', () => {
  it('unknown, expired and already revoked tokens: 200, empty, no audit event', async () => {
    const { client, token } = await makeToken(t);
    await expectEmpty200(await revoke(withCredentials(client, token)));
    audited.length = 0;
    await expectEmpty200(await revoke(withCredentials(client, token)));
    await expectEmpty200(await revoke(withCredentials(client, 'x'.repeat(43))));
    const expiring = await makeToken(t);
    t.clock.advance(600_000);
    try {
      await expectEmpty200(await revoke(withCredentials(expiring.client, expiring.token)));
    } finally {
      t.clock.advance(-600_000);
    }
    expect(audited).toEqual([]);
  });
});

describe("revokeToken: another client's token", () => {
  it('is refused with 403 and stays valid', async () => {
    const { token } = await makeToken(t);
    const other = await makeClient(t, (await makeUser(t)).id);
    audited.length = 0;
    const res = await revoke(withCredentials(other, token));
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual(oauthErrorBody('unauthorized_client', 'This token was issued to another client'));
    expect((await whois(token))[0]).toBe(200);
    expect(audited).toEqual([]);
  });
});

describe('revokeToken: client authentication and bad requests', () => {
  it('401 for missing credentials, an unknown client or a wrong secret; the token stays valid', async () => {
    const { client, token } = await makeToken(t);
    const cases: [Record<string, string>, Record<string, string>, string][] = [
      [{ token }, {}, 'Client authentication is required: send client_id and client_secret'],
      [{ token, client_id: 'nobody', client_secret: 's' }, {}, 'Unknown client'],
      [{ token, client_id: client.clientId, client_secret: 'wrong' }, {}, 'Invalid client secret'],
      [{ token }, { Authorization: `Basic ${Buffer.from(`${client.clientId}:wrong`).toString('base64')}` }, 'Invalid client secret'],
    ];
    for (const [params, headers, message] of cases) {
      const res = await revoke(params, headers);
      expect([res.status, await res.json()]).toEqual([401, oauthErrorBody('invalid_client', message)]);
    }
    const viaBasic = await revoke({ token }, { Authorization: 'Basic !!!' });
    expect(viaBasic.status).toBe(401);
    expect(viaBasic.headers.get('www-authenticate')).toBe('Basic realm="oauth", charset="UTF-8"');
    expect((await whois(token))[0]).toBe(200);
  });

  it('400 for credentials in both places, a missing token, a repeated parameter', async () => {
    const { client, token } = await makeToken(t);
    const both = await revoke(withCredentials(client, token), { Authorization: basic(client) });
    expect([both.status, await both.json()]).toEqual([400, oauthErrorBody('invalid_request', 'Send client credentials either in the Authorization header or in the body, not both')]);
    const missing = await revoke({ client_id: client.clientId, client_secret: client.clientSecret });
    expect([missing.status, await missing.json()]).toEqual([400, oauthErrorBody('invalid_request', 'Body field token is required')]);
    const repeated = await fetch(`${t.baseUrl}/api/oauth/revoke`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `token=${token}&token=other&client_id=${client.clientId}&client_secret=${client.clientSecret}`,
    });
    expect([repeated.status, await repeated.json()]).toEqual([400, oauthErrorBody('invalid_request', 'Parameter token is repeated')]);
    expect((await whois(token))[0]).toBe(200);
  });

  it("sends no Access-Control-Allow-Origin for a confidential app's revocation (its backend calls it)", async () => {
    const { client, token } = await makeToken(t);
    const res = await revoke(withCredentials(client, token), { Origin: 'https://evil.example' });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});
