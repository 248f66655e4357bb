/**
 * Grants and remembered consent: the traditional flow and the game flow record a grant;
 * /oauth answers an already-granted app without the page (prompt=consent asks again, prompt=none
 * never shows a page); listGrants and revokeGrant on the account, revoking the app's tokens at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, makeClient, makeUser, signedInAgent, startServer, tokenRequest, type TestClient, type TestServer } from '../helpers.js';

let t: TestServer;
let iss: string;
beforeAll(async () => {
  t = await startServer({}, { limits: { signInIp: { points: 1000, seconds: 600 } } });
  iss = t.config.publicUrl.replace(/\/+$/, '');
});
afterAll(async () => t?.close());

const CALLBACK = 'https://client.example/callback';

function authorizeUrl(client: TestClient, params: Record<string, string> = {}): string {
  return `/oauth?${new URLSearchParams({ client_id: client.clientId, redirect_uri: CALLBACK, scope: 'userinfo', state: 's1', ...params })}`;
}

function query(location: string | null): Record<string, string> {
  const url = new URL(location!);
  expect(`${url.origin}${url.pathname}`).toBe(CALLBACK);
  return Object.fromEntries(url.searchParams);
}

async function consent(agent: Agent, client: TestClient, scope = 'userinfo'): Promise<string> {
  const res = await agent.form('/oauth', { decision: 'authorize', client_id: client.clientId, redirect_uri: CALLBACK, scope, state: 's1' });
  expect(res.status).toBe(302);
  return query(res.headers.get('location')).code!;
}

async function tokenFor(client: TestClient, code: string): Promise<string> {
  const res = await tokenRequest(t, { grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: client.clientSecret });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

function whois(token: string): Promise<Response> {
  return fetch(`${t.baseUrl}/api/oauth/whois`, { headers: { Authorization: `Bearer ${token}` } });
}

async function app(): Promise<TestClient> {
  const owner = await makeUser(t);
  return makeClient(t, owner.id, [CALLBACK]);
}

describe('remembered consent in the traditional flow', () => {
  it('shows the page the first time, then answers with a code (and iss) without a page', async () => {
    const client = await app();
    const { agent, user } = await signedInAgent(t);
    expect((await agent.fetch(authorizeUrl(client))).status).toBe(200);
    await consent(agent, client);
    const grant = await t.store.grants.getGrant(user.id, client.clientId);
    expect(grant).toMatchObject({ userId: user.id, clientId: client.clientId, scopes: ['userinfo'] });

    t.clock.advance(1000);
    const res = await agent.fetch(authorizeUrl(client));
    expect(res.status).toBe(302);
    const params = query(res.headers.get('location'));
    expect(Object.keys(params).sort()).toEqual(['code', 'iss', 'state']);
    expect(params.state).toBe('s1');
    expect(params.iss).toBe(iss);
    const body = await (await whois(await tokenFor(client, params.code!))).json();
    expect(body).toEqual({ id: user.id, name: user.name });
    const after = await t.store.grants.getGrant(user.id, client.clientId);
    expect(after!.createdAt).toBe(grant!.createdAt);
    expect(after!.lastUsedAt).toBe(t.clock.now());
  });

  it('asks again for scopes beyond the grant, and remembers the widened grant', async () => {
    const client = await app();
    const { agent, user } = await signedInAgent(t);
    await consent(agent, client, 'userinfo');
    expect((await agent.fetch(authorizeUrl(client, { scope: 'userinfo email' }))).status).toBe(200);
    await consent(agent, client, 'userinfo email');
    expect((await t.store.grants.getGrant(user.id, client.clientId))!.scopes).toEqual(['userinfo', 'email']);
    // A narrower request is covered.
    expect((await agent.fetch(authorizeUrl(client, { scope: 'userinfo' }))).status).toBe(302);
  });

  it('a grant is per user: another user still sees the page', async () => {
    const client = await app();
    const { agent } = await signedInAgent(t);
    await consent(agent, client);
    const other = await signedInAgent(t);
    expect((await other.agent.fetch(authorizeUrl(client))).status).toBe(200);
  });

  it('Cancel records no grant', async () => {
    const client = await app();
    const { agent, user } = await signedInAgent(t);
    await agent.form('/oauth', { decision: 'cancel', client_id: client.clientId, redirect_uri: CALLBACK, scope: 'userinfo' });
    expect(await t.store.grants.getGrant(user.id, client.clientId)).toBeUndefined();
  });

  it('prompt=consent shows the page even with a grant', async () => {
    const client = await app();
    const { agent } = await signedInAgent(t);
    await consent(agent, client);
    const res = await agent.fetch(authorizeUrl(client, { prompt: 'consent' }));
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('id="authorize"');
  });
});

describe('prompt=none never shows a page', () => {
  it('signed out: login_required with state and iss', async () => {
    const client = await app();
    const res = await new Agent(t).fetch(authorizeUrl(client, { prompt: 'none' }));
    expect(res.status).toBe(302);
    expect(query(res.headers.get('location'))).toEqual({
      error: 'login_required',
      error_description: 'The user is not signed in and prompt=none forbids asking',
      state: 's1',
      iss,
    });
  });

  it('signed in without a grant: consent_required', async () => {
    const client = await app();
    const { agent } = await signedInAgent(t);
    const res = await agent.fetch(authorizeUrl(client, { prompt: 'none' }));
    expect(res.status).toBe(302);
    expect(query(res.headers.get('location'))).toEqual({
      error: 'consent_required',
      error_description: 'The app needs consent and prompt=none forbids asking',
      state: 's1',
      iss,
    });
  });

  it('signed in with a grant: the code', async () => {
    const client = await app();
    const { agent } = await signedInAgent(t);
    await consent(agent, client);
    const res = await agent.fetch(authorizeUrl(client, { prompt: 'none', scope: 'userinfo' }));
    expect(Object.keys(query(res.headers.get('location'))).sort()).toEqual(['code', 'iss', 'state']);
    // Wider than the grant: consent needed.
    const wider = await agent.fetch(authorizeUrl(client, { prompt: 'none', scope: 'userinfo email' }));
    expect(query(wider.headers.get('location')).error).toBe('consent_required');
  });

  it('none combined with another value is invalid_request', async () => {
    const client = await app();
    const res = await new Agent(t).fetch(authorizeUrl(client, { prompt: 'none consent' }));
    expect(query(res.headers.get('location'))).toEqual({
      error: 'invalid_request',
      error_description: 'prompt=none cannot be combined with other prompt values',
      state: 's1',
      iss,
    });
  });

  it('an unknown client still gets the error page, never a redirect', async () => {
    const res = await new Agent(t).fetch(`/oauth?client_id=nope&redirect_uri=${encodeURIComponent(CALLBACK)}&scope=userinfo&prompt=none`);
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });
});

describe('game flow grants', () => {
  async function game(): Promise<{ client: TestClient; gameId: number }> {
    const author = await makeUser(t);
    const client = await makeClient(t, author.id, [CALLBACK]);
    const created = await t.store.games.createGame({ authorId: author.id, title: 'G', url: 'https://game.example/', createdAt: t.clock.now() });
    return { client, gameId: created.id };
  }

  it('issueGameCode records the grant; getGameApp then says granted (and only to that player)', async () => {
    const { client, gameId } = await game();
    const { agent, user } = await signedInAgent(t);
    const before = await agent.fetch(`/api/games/${gameId}/apps/${client.clientId}`);
    expect(((await before.json()) as { granted: boolean }).granted).toBe(false);
    const res = await agent.json('POST', `/api/games/${gameId}/codes`, { client_id: client.clientId, scopes: ['userinfo'] });
    expect(res.status).toBe(200);
    expect((await t.store.grants.getGrant(user.id, client.clientId))!.scopes).toEqual(['userinfo']);
    const after = await agent.fetch(`/api/games/${gameId}/apps/${client.clientId}`);
    expect(after.headers.get('cache-control')).toBe('no-store');
    expect(((await after.json()) as { granted: boolean }).granted).toBe(true);
    const other = await signedInAgent(t);
    expect(((await (await other.agent.fetch(`/api/games/${gameId}/apps/${client.clientId}`)).json()) as { granted: boolean }).granted).toBe(false);
    const anonymous = await fetch(`${t.baseUrl}/api/games/${gameId}/apps/${client.clientId}`);
    expect(((await anonymous.json()) as { granted: boolean }).granted).toBe(false);
  });

  it('a game-flow grant also remembers consent for the traditional flow (same app, same scopes)', async () => {
    const { client, gameId } = await game();
    const { agent } = await signedInAgent(t);
    await agent.json('POST', `/api/games/${gameId}/codes`, { client_id: client.clientId, scopes: ['userinfo'] });
    expect((await agent.fetch(authorizeUrl(client))).status).toBe(302);
  });
});

describe('listGrants', () => {
  it('lists each granted app with name, owner, scopes, granted and last used; 401 signed out', async () => {
    const owner = await makeUser(t);
    const client = await makeClient(t, owner.id, [CALLBACK]);
    const { agent } = await signedInAgent(t);
    const grantedAt = t.clock.now();
    await consent(agent, client, 'userinfo email');
    const res = await agent.fetch('/api/account/grants');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({
      grants: [
        {
          client_id: client.clientId,
          app_name: 'Test App',
          owner: { id: owner.id, name: owner.name },
          scopes: ['userinfo', 'email'],
          granted_at: grantedAt,
          last_used_at: grantedAt,
        },
      ],
    });
    const out = await new Agent(t).fetch('/api/account/grants');
    expect([out.status, await out.json()]).toEqual([401, { message: 'Sign in first' }]);
  });
});

describe('revokeGrant', () => {
  it('removes the grant, revokes the live tokens of that user for that app at once, and the next authorization asks again', async () => {
    const client = await app();
    const { agent, user } = await signedInAgent(t);
    const token = await tokenFor(client, await consent(agent, client));
    const second = await tokenFor(client, await consent(agent, client));
    // An unused code is discarded too.
    const unused = await consent(agent, client);
    // Another user's token for the same app is untouched.
    const other = await signedInAgent(t);
    const otherToken = await tokenFor(client, await consent(other.agent, client));
    expect((await whois(token)).status).toBe(200);

    const res = await agent.json('DELETE', `/api/account/grants/${client.clientId}`);
    expect(res.status).toBe(204);
    for (const revoked of [token, second]) {
      const who = await whois(revoked);
      expect([who.status, await who.json()]).toEqual([401, { message: 'Access token has been revoked' }]);
    }
    expect((await whois(otherToken)).status).toBe(200);
    const redeem = await tokenRequest(t, { grant_type: 'authorization_code', code: unused, client_id: client.clientId, client_secret: client.clientSecret });
    expect(redeem.status).toBe(400);
    expect(await t.store.grants.getGrant(user.id, client.clientId)).toBeUndefined();
    expect((await agent.fetch(authorizeUrl(client))).status).toBe(200);
    expect(query((await agent.fetch(authorizeUrl(client, { prompt: 'none' }))).headers.get('location')).error).toBe('consent_required');
  });

  it('is 404 when there is no grant (never granted, already revoked, unknown app)', async () => {
    const client = await app();
    const { agent } = await signedInAgent(t);
    for (const id of [client.clientId, 'unknown-app']) {
      const res = await agent.json('DELETE', `/api/account/grants/${id}`);
      expect([res.status, await res.json()]).toEqual([404, { message: 'No grant for this app' }]);
    }
    await consent(agent, client);
    expect((await agent.json('DELETE', `/api/account/grants/${client.clientId}`)).status).toBe(204);
    expect((await agent.json('DELETE', `/api/account/grants/${client.clientId}`)).status).toBe(404);
  });

  it('needs the CSRF token', async () => {
    const client = await app();
    const { agent, user } = await signedInAgent(t);
    await consent(agent, client);
    const res = await agent.fetch(`/api/account/grants/${client.clientId}`, { method: 'DELETE' });
    expect([res.status, await res.json()]).toEqual([403, { message: 'Invalid CSRF token' }]);
    expect(await t.store.grants.getGrant(user.id, client.clientId)).toBeDefined();
  });

  it('deleting an app removes the grants to it', async () => {
    const owner = await makeUser(t);
    const client = await makeClient(t, owner.id, [CALLBACK]);
    const { agent, user } = await signedInAgent(t);
    await consent(agent, client);
    await t.store.apps.deleteApp(client.clientId);
    expect(await t.store.grants.getGrant(user.id, client.clientId)).toBeUndefined();
  });
});
