/** The signed-in user's apps: registerApp, listApps, updateApp, rotateAppSecret, deleteApp, getAppsPage. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEvent, AuditFields } from '../../src/audit.js';
import { Agent, makeCode, oauthErrorBody, signedInAgent, startServer, tokenRequest, type TestServer } from '../helpers.js';

let t: TestServer;
/** The app_updated events, as the trail hears them. */
let audited: { event: AuditEvent; fields: AuditFields }[] = [];
beforeAll(async () => {
  t = await startServer();
  const audit = t.app.deps.audit;
  t.app.deps.audit = (event, fields) => {
    if (event === 'app_updated') audited.push({ event, fields });
    audit(event, fields);
  };
});
afterAll(async () => t?.close());

interface Registered {
  client_id: string;
  client_secret: string;
  name: string;
  redirect_uris: string[];
  grant_types: string[];
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
      grant_types: ['authorization_code'],
      created_at: t.clock.now(),
    });
    expect((await t.store.apps.getApp(app.client_id))?.ownerId).toBe(user.id);
    expect((await exchange(user.id, app, app.client_secret)).status).toBe(200);
  });

  it('takes grant_types: duplicates dropped, in the contract\'s order, listed as registered', async () => {
    const { agent } = await signedInAgent(t);
    const res = await agent.json('POST', '/api/apps', {
      name: 'Chess',
      redirect_uris: ['https://chess.example/cb'],
      grant_types: ['refresh_token', 'authorization_code'],
    });
    const app = (await res.json()) as Registered;
    expect([res.status, app.grant_types]).toEqual([201, ['authorization_code', 'refresh_token']]);
    expect((await t.store.apps.getApp(app.client_id))?.grantTypes).toEqual(['authorization_code', 'refresh_token']);
    t.clock.advance(1000);
    const twice = await agent.json('POST', '/api/apps', { name: 'Chess', redirect_uris: ['https://chess.example/cb'], grant_types: ['authorization_code', 'authorization_code'] });
    const second = (await twice.json()) as Registered;
    expect([twice.status, second.grant_types]).toEqual([201, ['authorization_code']]);
    expect(await (await agent.fetch('/api/apps')).json()).toEqual({ apps: [app, second].map(({ client_secret: _secret, ...listed }) => listed) });
  });

  it('refuses 0 or 11 redirect URIs, plain http off localhost, fragments and an empty name', async () => {
    const { agent } = await signedInAgent(t);
    const cases: [unknown, string][] = [
      [{ name: 'A', redirect_uris: [] }, 'An app needs 1 to 10 redirect URIs'],
      [{ name: 'A', redirect_uris: Array.from({ length: 11 }, (_, i) => `https://a.example/${i}`) }, 'Body field redirect_uris must NOT have more than 10 items'],
      [{ name: 'A', redirect_uris: ['http://chess.example/cb'] }, 'Redirect URI must use https (http is allowed on localhost only): http://chess.example/cb'],
      [{ name: 'A', redirect_uris: ['https://chess.example/cb#x'] }, 'Redirect URI must not contain a fragment: https://chess.example/cb#x'],
      [{ name: ' ', redirect_uris: ['https://chess.example/cb'] }, 'App name must be 1 to 64 characters'],
      [{ name: 'A', redirect_uris: ['https://chess.example/cb'], grant_types: ['refresh_token'] }, 'grant_types must include authorization_code'],
      [{ name: 'A', redirect_uris: ['https://chess.example/cb'], grant_types: [] }, 'Body field grant_types must NOT have fewer than 1 items'],
      [{ name: 'A', redirect_uris: ['https://chess.example/cb'], grant_types: ['implicit'] }, 'Body field grant_types.0 must be equal to one of the allowed values'],
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

describe('updateApp', () => {
  const authorize = (clientId: string, redirectUri: string) =>
    new Agent(t).fetch(`/oauth?${new URLSearchParams({ client_id: clientId, redirect_uri: redirectUri, scope: 'userinfo', response_type: 'code' })}`);
  const withoutSecret = ({ client_secret: _secret, ...app }: Registered) => app;

  it("changes the owner's app and answers it as listApps lists it, not cached; a field left out stays; audited with the fields changed", async () => {
    const { agent, user } = await signedInAgent(t);
    const app = await register(agent);
    audited = [];
    const renamed = await agent.json('PATCH', `/api/apps/${app.client_id}`, { name: '  Chess 2  ' });
    expect(renamed.status).toBe(200);
    expect(renamed.headers.get('cache-control')).toBe('no-store');
    const expected = { ...withoutSecret(app), name: 'Chess 2', public: false, post_logout_redirect_uris: [], grant_types: ['authorization_code'] };
    expect(await renamed.json()).toEqual(expected);
    const moved = await agent.json('PATCH', `/api/apps/${app.client_id}`, {
      redirect_uris: ['https://new.example/cb', 'https://new.example/cb', 'http://127.0.0.1/cb'],
      post_logout_redirect_uris: ['https://new.example/bye'],
    });
    const after = { ...expected, redirect_uris: ['https://new.example/cb', 'http://127.0.0.1/cb'], post_logout_redirect_uris: ['https://new.example/bye'] };
    expect([moved.status, await moved.json()]).toEqual([200, after]);
    const cleared = await agent.json('PATCH', `/api/apps/${app.client_id}`, { post_logout_redirect_uris: [] });
    expect([cleared.status, await cleared.json()]).toEqual([200, { ...after, post_logout_redirect_uris: [] }]);
    expect(await (await agent.fetch('/api/apps')).json()).toEqual({ apps: [{ ...after, post_logout_redirect_uris: [] }] });
    const refreshing = await agent.json('PATCH', `/api/apps/${app.client_id}`, { grant_types: ['refresh_token', 'authorization_code'] });
    const final = { ...after, post_logout_redirect_uris: [], grant_types: ['authorization_code', 'refresh_token'] };
    expect([refreshing.status, await refreshing.json()]).toEqual([200, final]);
    expect(await (await agent.fetch('/api/apps')).json()).toEqual({ apps: [final] });
    expect(audited).toEqual([
      { event: 'app_updated', fields: { userId: user.id, clientId: app.client_id, fields: ['name'], ip: '127.0.0.1' } },
      { event: 'app_updated', fields: { userId: user.id, clientId: app.client_id, fields: ['redirect_uris', 'post_logout_redirect_uris'], ip: '127.0.0.1' } },
      { event: 'app_updated', fields: { userId: user.id, clientId: app.client_id, fields: ['post_logout_redirect_uris'], ip: '127.0.0.1' } },
      { event: 'app_updated', fields: { userId: user.id, clientId: app.client_id, fields: ['grant_types'], ip: '127.0.0.1' } },
    ]);
  });

  it('keeps the client id, the secret and public: the old secret still works, and the new redirect URIs are the only ones /oauth accepts', async () => {
    const { agent, user } = await signedInAgent(t);
    const app = await register(agent, ['https://old.example/cb']);
    expect((await authorize(app.client_id, 'https://old.example/cb')).status).toBe(302);
    expect((await agent.json('PATCH', `/api/apps/${app.client_id}`, { redirect_uris: ['https://new.example/cb'] })).status).toBe(200);
    expect((await authorize(app.client_id, 'https://old.example/cb')).status).toBe(400);
    const signIn = await authorize(app.client_id, 'https://new.example/cb');
    expect([signIn.status, signIn.headers.get('location')?.startsWith('/signin?return_to=')]).toEqual([302, true]);
    expect((await exchange(user.id, app, app.client_secret)).status).toBe(200);
    expect(await t.store.apps.getApp(app.client_id)).toMatchObject({ clientId: app.client_id, public: false, ownerId: user.id, redirectUris: ['https://new.example/cb'] });
  });

  it('changes a public app and leaves it public, without a secret', async () => {
    const { agent } = await signedInAgent(t);
    const created = await agent.json('POST', '/api/apps', { name: 'SPA', redirect_uris: ['https://spa.example/cb'], public: true });
    const app = (await created.json()) as { client_id: string; created_at: number };
    const res = await agent.json('PATCH', `/api/apps/${app.client_id}`, { name: 'SPA 2', redirect_uris: ['https://spa2.example/cb'] });
    expect([res.status, await res.json()]).toEqual([
      200,
      {
        client_id: app.client_id,
        name: 'SPA 2',
        public: true,
        redirect_uris: ['https://spa2.example/cb'],
        post_logout_redirect_uris: [],
        grant_types: ['authorization_code'],
        created_at: app.created_at,
      },
    ]);
    expect((await t.store.apps.getApp(app.client_id))?.secretHash).toBeNull();
  });

  it('refuses an empty change, the registration rules broken, and fields it does not change (public, the secret, the client id)', async () => {
    const { agent } = await signedInAgent(t);
    const app = await register(agent);
    const cases: [unknown, string][] = [
      [{}, 'Send at least one of name, redirect_uris, post_logout_redirect_uris and grant_types'],
      [{ name: ' ' }, 'App name must be 1 to 64 characters'],
      [{ name: 'a\u0000b' }, 'App name must not contain control characters'],
      [{ redirect_uris: [] }, 'An app needs 1 to 10 redirect URIs'],
      [{ redirect_uris: Array.from({ length: 11 }, (_, i) => `https://a.example/${i}`) }, 'Body field redirect_uris must NOT have more than 10 items'],
      [{ redirect_uris: ['http://chess.example/cb'] }, 'Redirect URI must use https (http is allowed on localhost only): http://chess.example/cb'],
      [{ redirect_uris: ['https://chess.example/cb#x'] }, 'Redirect URI must not contain a fragment: https://chess.example/cb#x'],
      [{ post_logout_redirect_uris: ['https://chess.example/#bye'] }, 'Post-logout redirect URI must not contain a fragment: https://chess.example/#bye'],
      [{ grant_types: ['refresh_token'] }, 'grant_types must include authorization_code'],
      [{ grant_types: ['authorization_code', 'refresh_token', 'refresh_token', 'refresh_token'] }, 'Body field grant_types must NOT have more than 3 items'],
      [{ grant_types: ['device_code'] }, 'Body field grant_types.0 must be equal to one of the allowed values'],
      [{ name: 'A', public: true }, 'Body field public is not allowed'],
      [{ name: 'A', client_secret: 'x' }, 'Body field client_secret is not allowed'],
      [{ name: 'A', client_id: 'other' }, 'Body field client_id is not allowed'],
    ];
    for (const [body, message] of cases) {
      const res = await agent.json('PATCH', `/api/apps/${app.client_id}`, body);
      expect([res.status, await res.json()], JSON.stringify(body)).toEqual([400, { message }]);
    }
    expect(await (await agent.fetch('/api/apps')).json()).toEqual({
      apps: [{ ...withoutSecret(app), name: 'Chess', public: false, post_logout_redirect_uris: [], grant_types: ['authorization_code'] }],
    });
  });

  it("is 404 for another user's app, which stays as it was, and for an unknown one", async () => {
    const owner = await signedInAgent(t);
    const app = await register(owner.agent);
    const { agent } = await signedInAgent(t);
    audited = [];
    for (const id of [app.client_id, 'unknown']) {
      const res = await agent.json('PATCH', `/api/apps/${id}`, { name: 'Mine now' });
      expect([res.status, await res.json()]).toEqual([404, { message: 'App not found' }]);
    }
    expect((await t.store.apps.getApp(app.client_id))?.name).toBe('Chess');
    expect(audited).toEqual([]);
  });

  it('is 401 signed out and 403 without the CSRF token', async () => {
    const { agent } = await signedInAgent(t);
    const app = await register(agent);
    const anon = await new Agent(t).json('PATCH', `/api/apps/${app.client_id}`, { name: 'A' });
    expect([anon.status, await anon.json()]).toEqual([401, { message: 'Sign in first' }]);
    const res = await agent.fetch(`/api/apps/${app.client_id}`, { method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body: '{"name":"A"}' });
    expect([res.status, await res.json()]).toEqual([403, { message: 'Invalid CSRF token' }]);
    expect((await t.store.apps.getApp(app.client_id))?.name).toBe('Chess');
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
    expect(await t.store.apps.getApp(app.client_id)).toBeDefined();
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
    expect(body).toContain('<script src="/assets/apps.js"></script>');
  });
});
