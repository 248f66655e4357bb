/** The signed-in user's apps: registerApp, listApps, rotateAppSecret, deleteApp, getAppsPage. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, makeCode, oauthErrorBody, signedInAgent, startServer, tokenRequest, type TestServer } from '../helpers.js';

let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(async () => t?.close());

interface Registered {
  client_id: string;
  client_secret: string;
  name: string;
  redirect_uris: string[];
  created_at: number;
}

async function register(agent: Agent, redirectUris = ['https://chess.example/cb', 'http://localhost:8080/cb']): Promise<Registered> {
  const res = await agent.json('POST', '/api/apps', { name: '  Chess  ', redirect_uris: redirectUris });
  expect(res.status).toBe(201);
  return (await res.json()) as Registered;
}

async function exchange(userId: number, app: { client_id: string }, secret: string): Promise<Response> {
  const code = await makeCode(t, { userId, clientId: app.client_id });
  return tokenRequest(t, { grant_type: 'authorization_code', code, client_id: app.client_id, client_secret: secret });
}

describe('registerApp', () => {
  it('answers 201 with the client id and the secret (shown once), not cached; the secret works', async () => {
    const { agent, user } = await signedInAgent(t);
    const res = await agent.json('POST', '/api/apps', { name: 'Chess', redirect_uris: ['https://chess.example/cb'] });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const app = (await res.json()) as Registered;
    expect(app).toEqual({
      client_id: expect.stringMatching(/^[\w-]{11}$/),
      client_secret: expect.stringMatching(/^[\w-]{43}$/),
      name: 'Chess',
      public: false,
      redirect_uris: ['https://chess.example/cb'],
      post_logout_redirect_uris: [],
      created_at: t.clock.now(),
    });
    expect((await t.store.getApp(app.client_id))?.ownerId).toBe(user.id);
    expect((await exchange(user.id, app, app.client_secret)).status).toBe(200);
  });

  it('refuses 0 or 11 redirect URIs, plain http off localhost, fragments and an empty name', async () => {
    const { agent } = await signedInAgent(t);
    const cases: [unknown, string][] = [
      [{ name: 'A', redirect_uris: [] }, 'An app needs 1 to 10 redirect URIs'],
      [{ name: 'A', redirect_uris: Array.from({ length: 11 }, (_, i) => `https://a.example/${i}`) }, 'Body field redirect_uris must NOT have more than 10 items'],
      [{ name: 'A', redirect_uris: ['http://chess.example/cb'] }, 'Redirect URI must use https (http is allowed on localhost only): http://chess.example/cb'],
      [{ name: 'A', redirect_uris: ['https://chess.example/cb#x'] }, 'Redirect URI must not contain a fragment: https://chess.example/cb#x'],
      [{ name: ' ', redirect_uris: ['https://chess.example/cb'] }, 'App name must be 1 to 64 characters'],
    ];
    for (const [body, message] of cases) {
      const res = await agent.json('POST', '/api/apps', body);
      expect([res.status, await res.json()]).toEqual([400, { message }]);
    }
  });

  it('is 401 signed out and 403 without the CSRF token', async () => {
    expect((await new Agent(t).json('POST', '/api/apps', { name: 'A', redirect_uris: ['https://a.example/cb'] })).status).toBe(401);
    const { agent } = await signedInAgent(t);
    const res = await agent.fetch('/api/apps', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"name":"A","redirect_uris":["https://a.example/cb"]}' });
    expect([res.status, await res.json()]).toEqual([403, { message: 'Invalid CSRF token' }]);
  });
});

describe('listApps', () => {
  it("lists the user's own apps, oldest first, without secrets", async () => {
    const { agent } = await signedInAgent(t);
    const first = await register(agent);
    t.clock.advance(1000);
    const second = await register(agent, ['https://second.example/cb']);
    await register((await signedInAgent(t)).agent);
    const res = await agent.fetch('/api/apps');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      apps: [first, second].map(({ client_secret: _secret, ...app }) => ({ ...app, name: 'Chess' })),
    });
  });

  it('is 401 signed out', async () => {
    expect(await (await new Agent(t).fetch('/api/apps')).json()).toEqual({ message: 'Sign in first' });
  });
});

describe('rotateAppSecret', () => {
  it('gives a new secret; the old one stops working at once', async () => {
    const { agent, user } = await signedInAgent(t);
    const app = await register(agent);
    const res = await agent.json('POST', `/api/apps/${app.client_id}/secret`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const rotated = (await res.json()) as { client_id: string; client_secret: string };
    expect(rotated).toEqual({ client_id: app.client_id, client_secret: expect.stringMatching(/^[\w-]{43}$/) });
    expect(rotated.client_secret).not.toBe(app.client_secret);
    const old = await exchange(user.id, app, app.client_secret);
    expect([old.status, await old.json()]).toEqual([401, oauthErrorBody('invalid_client', 'Invalid client secret')]);
    expect((await exchange(user.id, app, rotated.client_secret)).status).toBe(200);
  });

  it("is 404 for another user's app and for an unknown one", async () => {
    const owner = await signedInAgent(t);
    const app = await register(owner.agent);
    const { agent } = await signedInAgent(t);
    for (const id of [app.client_id, 'unknown']) {
      const res = await agent.json('POST', `/api/apps/${id}/secret`);
      expect([res.status, await res.json()]).toEqual([404, { message: 'App not found' }]);
    }
  });
});

describe('deleteApp', () => {
  it('deletes the app and revokes its codes and tokens', async () => {
    const { agent, user } = await signedInAgent(t);
    const app = await register(agent);
    const token = ((await (await exchange(user.id, app, app.client_secret)).json()) as { access_token: string }).access_token;
    const code = await makeCode(t, { userId: user.id, clientId: app.client_id });
    const res = await agent.json('DELETE', `/api/apps/${app.client_id}`);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect((await fetch(`${t.baseUrl}/api/oauth/whois`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(401);
    const redeem = await tokenRequest(t, { grant_type: 'authorization_code', code, client_id: app.client_id, client_secret: app.client_secret });
    expect([redeem.status, await redeem.json()]).toEqual([401, oauthErrorBody('invalid_client', 'Unknown client')]);
    expect(await (await agent.fetch('/api/apps')).json()).toEqual({ apps: [] });
  });

  it("is 404 for another user's app, which stays", async () => {
    const owner = await signedInAgent(t);
    const app = await register(owner.agent);
    const res = await (await signedInAgent(t)).agent.json('DELETE', `/api/apps/${app.client_id}`);
    expect([res.status, await res.json()]).toEqual([404, { message: 'App not found' }]);
    expect(await t.store.getApp(app.client_id)).toBeDefined();
  });
});

describe('getAppsPage', () => {
  it('sends a visitor to sign in; shows a signed-in user the page and its script', async () => {
    const res = await new Agent(t).fetch('/apps');
    expect([res.status, res.headers.get('location')]).toEqual([303, '/signin?return_to=%2Fapps']);
    const { agent } = await signedInAgent(t);
    const page = await agent.fetch('/apps');
    expect(page.status).toBe(200);
    const body = await page.text();
    expect(body).toContain('<form id="register-form" class="stack">');
    expect(body).toContain('<script src="/assets/common.js"></script><script src="/assets/apps.js"></script>');
  });
});
