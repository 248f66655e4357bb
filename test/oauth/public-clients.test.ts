/**
 * Public clients (docs/oauth.md#public-clients): registration through the API and the CLI without
 * any secret, authentication by client_id alone, PKCE required in both flows, the same code rules
 * as confidential apps, revocation, no introspection, no secret rotation, and the `x-cors: client`
 * CORS policy of the token, whois and revocation endpoints.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/admin.js';
import { registerGame } from '../../src/games/games.js';
import { registerOAuthApp } from '../../src/oauth/clients.js';
import type { UserRecord } from '../../src/domain/users.js';
import { Agent, makeClient, makeCode, makeUser, oauthErrorBody, signedInAgent, startServer, tokenRequest, type TestServer } from '../helpers.js';
import { profileClaims } from '../oidc-flow.js';

let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(async () => t?.close());

const SPA = 'https://spa.example';
const CALLBACK = `${SPA}/callback`;
const GAME_ORIGIN = 'https://game.example';
const NO_SECRET = 'A public app has no client secret';
const NEEDS_PKCE = 'A public client must send a PKCE code_challenge (S256)';

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

interface PublicApp {
  clientId: string;
  owner: UserRecord;
}

async function publicApp(redirectUris = [CALLBACK]): Promise<PublicApp> {
  const owner = await makeUser(t);
  const { app } = await registerOAuthApp({ store: t.store, now: t.clock.now }, { ownerId: owner.id, name: 'SPA', redirectUris, public: true });
  return { clientId: app.clientId, owner };
}

/** A code of the public app for a new user, bound to a fresh challenge (and to CALLBACK unless null). */
async function publicCode(app: PublicApp, redirectUri: string | null = CALLBACK) {
  const user = await makeUser(t);
  const { verifier, challenge } = pkce();
  const code = await makeCode(t, { userId: user.id, clientId: app.clientId, redirectUri, codeChallenge: challenge });
  return { user, code, verifier };
}

const redeem = (params: Record<string, string>, headers: Record<string, string> = {}) => tokenRequest(t, { grant_type: 'authorization_code', ...params }, headers);

async function expectError(res: Response, status: number, message: string): Promise<void> {
  expect([res.status, await res.json()]).toEqual([status, { message }]);
}

/** The token, revocation and introspection endpoints' errors: `error` and `error_description` beside `message`. */
async function expectOAuthError(res: Response, status: number, error: string, message: string): Promise<void> {
  expect([res.status, await res.json()]).toEqual([status, oauthErrorBody(error, message)]);
}

async function accessToken(res: Response): Promise<string> {
  expect(res.status).toBe(200);
  const body = (await res.json()) as Record<string, unknown>;
  expect(body).toEqual({ access_token: expect.stringMatching(/^[\w-]{43}$/), token_type: 'Bearer', expires_in: 600 });
  return body.access_token as string;
}

const whois = (token: string, headers: Record<string, string> = {}) =>
  fetch(`${t.baseUrl}/api/oauth/whois`, { headers: { Authorization: `Bearer ${token}`, ...headers } });

function form(path: string, params: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${t.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(params).toString(),
  });
}

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

describe('registering a public app', () => {
  it('through the API: 201 without any client_secret, nothing secret stored, listed as public', async () => {
    const { agent, user } = await signedInAgent(t);
    const res = await agent.json('POST', '/api/apps', {
      name: 'Browser Chess',
      redirect_uris: [CALLBACK],
      public: true,
      post_logout_redirect_uris: [`${SPA}/`, `${SPA}/`, 'http://localhost:5173/bye'],
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const app = (await res.json()) as { client_id: string };
    const view = {
      client_id: app.client_id,
      name: 'Browser Chess',
      public: true,
      redirect_uris: [CALLBACK],
      post_logout_redirect_uris: [`${SPA}/`, 'http://localhost:5173/bye'],
      grant_types: ['authorization_code'],
      created_at: t.clock.now(),
    };
    expect(app).toEqual(view);
    expect(await t.store.apps.getApp(app.client_id)).toEqual({
      clientId: app.client_id,
      secretHash: null,
      public: true,
      ownerId: user.id,
      name: 'Browser Chess',
      redirectUris: [CALLBACK],
      postLogoutRedirectUris: [`${SPA}/`, 'http://localhost:5173/bye'],
      grantTypes: ['authorization_code'],
      createdAt: t.clock.now(),
    });
    expect(await t.store.knex('apps').where({ client_id: app.client_id }).first('secret_hash')).toEqual({ secret_hash: null });
    expect(await (await agent.fetch('/api/apps')).json()).toEqual({ apps: [view] });
  });

  it('a confidential app is the default: public false, a secret, no post-logout addresses', async () => {
    const { agent } = await signedInAgent(t);
    const res = await agent.json('POST', '/api/apps', { name: 'Chess', redirect_uris: [CALLBACK], public: false });
    expect(await res.json()).toEqual({
      client_id: expect.stringMatching(/^[\w-]{11}$/),
      client_secret: expect.stringMatching(/^[\w-]{43}$/),
      name: 'Chess',
      public: false,
      redirect_uris: [CALLBACK],
      post_logout_redirect_uris: [],
      grant_types: ['authorization_code'],
      created_at: t.clock.now(),
    });
  });

  it('refuses post-logout redirect URIs under the redirect URI rules, and more than 10', async () => {
    const { agent } = await signedInAgent(t);
    const cases: [unknown, number, string][] = [
      [['http://spa.example/'], 400, 'Post-logout redirect URI must use https (http is allowed on localhost only): http://spa.example/'],
      [['https://spa.example/#bye'], 400, 'Post-logout redirect URI must not contain a fragment: https://spa.example/#bye'],
      [['spa.example'], 400, 'Post-logout redirect URI is not an absolute URL: spa.example'],
      [Array.from({ length: 11 }, (_, i) => `https://spa.example/${i}`), 400, 'Body field post_logout_redirect_uris must NOT have more than 10 items'],
    ];
    for (const [uris, status, message] of cases) {
      const res = await agent.json('POST', '/api/apps', { name: 'SPA', redirect_uris: [CALLBACK], public: true, post_logout_redirect_uris: uris });
      expect([res.status, await res.json()], JSON.stringify(uris)).toEqual([status, { message }]);
    }
  });

  it('through the CLI: --public prints only the client id; --post-logout-redirect-uri repeats', async () => {
    const owner = await makeUser(t);
    let stdout = '';
    let stderr = '';
    const env = { DATABASE_URL: t.config.databaseUrl, PICTURES_DIR: t.config.picturesDir, LOG_LEVEL: 'silent' };
    const run = (...argv: string[]) => {
      stdout = '';
      stderr = '';
      return runCli(argv, { env, stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
    };
    const args = ['app', 'create', '--owner', String(owner.id), '--name', 'CLI SPA', '--redirect-uri', CALLBACK];
    expect(await run(...args, '--public', '--post-logout-redirect-uri', `${SPA}/a`, '--post-logout-redirect-uri', `${SPA}/b`)).toBe(0);
    expect(stderr).toBe('');
    const created = JSON.parse(stdout) as { client_id: string };
    expect(created).toEqual({ client_id: expect.stringMatching(/^[\w-]{11}$/) });
    expect(await t.store.apps.getApp(created.client_id)).toMatchObject({ public: true, secretHash: null, postLogoutRedirectUris: [`${SPA}/a`, `${SPA}/b`] });
    // Without --public: the same shape as always.
    expect(await run(...args)).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ client_id: expect.stringMatching(/^[\w-]{11}$/), client_secret: expect.stringMatching(/^[\w-]{43}$/) });
    // rotate-secret refuses a public app (exit 1).
    expect(await run('app', 'rotate-secret', '--client-id', created.client_id)).toBe(1);
    expect([stdout, stderr]).toEqual(['', `error: ${NO_SECRET}\n`]);
    // So does `code issue` without a challenge.
    expect(await run('code', 'issue', '--user', String(owner.id), '--client-id', created.client_id, '--scope', 'userinfo')).toBe(1);
    expect([stdout, stderr]).toEqual(['', `error: ${NEEDS_PKCE}\n`]);
  });
});

describe('the token endpoint', () => {
  it('redeems a code with client_id and code_verifier alone: the three fields, and the token works', async () => {
    const app = await publicApp();
    const { user, code, verifier } = await publicCode(app);
    const res = await redeem({ code, client_id: app.clientId, code_verifier: verifier, redirect_uri: CALLBACK });
    expect(res.headers.get('cache-control')).toBe('no-store');
    const token = await accessToken(res);
    expect(await (await whois(token)).json()).toEqual({ id: user.id, name: user.name });
  });

  it('refuses a secret from a public app, in the body or as HTTP Basic (401), and the code stays redeemable', async () => {
    const app = await publicApp();
    const { code, verifier } = await publicCode(app);
    await expectOAuthError(await redeem({ code, client_id: app.clientId, client_secret: 'anything', code_verifier: verifier }), 401, 'invalid_client', NO_SECRET);
    const viaBasic = await redeem({ code, code_verifier: verifier }, { Authorization: basic(app.clientId, 'anything') });
    expect(viaBasic.headers.get('www-authenticate')).toBe('Basic realm="oauth", charset="UTF-8"');
    await expectOAuthError(viaBasic, 401, 'invalid_client', NO_SECRET);
    await accessToken(await redeem({ code, client_id: app.clientId, code_verifier: verifier }));
  });

  it('still needs a secret from a confidential app (the message is the one it always was)', async () => {
    const owner = await makeUser(t);
    const client = await makeClient(t, owner.id);
    const code = await makeCode(t, { userId: owner.id, clientId: client.clientId });
    await expectOAuthError(await redeem({ code, client_id: client.clientId }), 401, 'invalid_client', 'client_secret is required');
    await expectOAuthError(await redeem({ code, client_id: 'no-such-client' }), 401, 'invalid_client', 'client_secret is required');
  });

  it('requires the code_verifier of a public app, and the right one', async () => {
    const app = await publicApp();
    const { code, verifier } = await publicCode(app);
    await expectOAuthError(await redeem({ code, client_id: app.clientId }), 400, 'invalid_grant', 'code_verifier is required for this code');
    await expectOAuthError(await redeem({ code, client_id: app.clientId, code_verifier: pkce().verifier }), 400, 'invalid_grant', 'code_verifier does not match the code_challenge');
    await accessToken(await redeem({ code, client_id: app.clientId, code_verifier: verifier }));
  });

  it('a replayed code is refused and revokes the token it gave (as for a confidential app)', async () => {
    const app = await publicApp();
    const { code, verifier } = await publicCode(app);
    const token = await accessToken(await redeem({ code, client_id: app.clientId, code_verifier: verifier }));
    await expectOAuthError(await redeem({ code, client_id: app.clientId, code_verifier: verifier }), 400, 'invalid_grant', 'Authorization code has already been used; tokens issued from it are revoked');
    await expectError(await whois(token), 401, 'Access token has been revoked');
  });

  it('an expired code is refused (as for a confidential app)', async () => {
    const app = await publicApp();
    const { code, verifier } = await publicCode(app);
    t.clock.advance(5 * 60 * 1000);
    await expectOAuthError(await redeem({ code, client_id: app.clientId, code_verifier: verifier }), 400, 'invalid_grant', 'Authorization code has expired');
  });

  it('a redirect_uri other than the code was issued for is refused (as for a confidential app)', async () => {
    const app = await publicApp([CALLBACK, `${SPA}/other`]);
    const { code, verifier } = await publicCode(app);
    await expectOAuthError(
      await redeem({ code, client_id: app.clientId, code_verifier: verifier, redirect_uri: `${SPA}/other` }),
      400,
      'invalid_grant',
      'redirect_uri does not match the one the code was issued for',
    );
  });

  it('no code of a public app is ever issued without a challenge', async () => {
    const app = await publicApp();
    const user = await makeUser(t);
    await expect(makeCode(t, { userId: user.id, clientId: app.clientId, redirectUri: CALLBACK })).rejects.toThrow(NEEDS_PKCE);
  });
});

describe('the traditional flow', () => {
  it('redirects a public app\'s request without code_challenge back with invalid_request, GET and POST', async () => {
    const app = await publicApp();
    const { agent } = await signedInAgent(t);
    const params = { client_id: app.clientId, redirect_uri: CALLBACK, scope: 'userinfo', state: 's1' };
    const expected = `${CALLBACK}?${new URLSearchParams({ error: 'invalid_request', error_description: NEEDS_PKCE, state: 's1', iss: t.config.publicUrl })}`;
    const get = await agent.fetch(`/oauth?${new URLSearchParams(params)}`);
    expect([get.status, get.headers.get('location')]).toEqual([302, expected]);
    const post = await agent.form('/oauth', { ...params, decision: 'authorize' });
    expect([post.status, post.headers.get('location')]).toEqual([302, expected]);
  });

  it('issues a code for a public app with PKCE, redeemed with client_id and the verifier', async () => {
    const app = await publicApp();
    const { agent, user } = await signedInAgent(t);
    const { verifier, challenge } = pkce();
    const params = { client_id: app.clientId, redirect_uri: CALLBACK, scope: 'userinfo', code_challenge: challenge, code_challenge_method: 'S256' };
    expect((await agent.fetch(`/oauth?${new URLSearchParams(params)}`)).status).toBe(200);
    const res = await agent.form('/oauth', { ...params, decision: 'authorize' });
    expect(res.status).toBe(302);
    const code = new URL(res.headers.get('location')!).searchParams.get('code')!;
    const token = await accessToken(await redeem({ code, client_id: app.clientId, code_verifier: verifier, redirect_uri: CALLBACK }));
    expect(await (await whois(token)).json()).toEqual({ id: user.id, name: user.name });
  });
});

describe('the game flow', () => {
  async function gameOfPublicApp() {
    const app = await publicApp();
    const game = await registerGame({ store: t.store, now: t.clock.now }, { authorId: app.owner.id, title: 'Browser Game', url: `${GAME_ORIGIN}/play` });
    return { app, game };
  }

  it('issues a code bound to the challenge, redeemed with client_id and the verifier (end to end through the API)', async () => {
    const { app, game } = await gameOfPublicApp();
    const { agent, user } = await signedInAgent(t);
    const { verifier, challenge } = pkce();
    const res = await agent.json('POST', `/api/games/${game.id}/codes`, {
      client_id: app.clientId,
      scopes: ['userinfo'],
      code_challenge: challenge,
      code_challenge_method: 'S256',
      nonce: 'n-0S6_WzA2Mj',
    });
    expect(res.status).toBe(200);
    const { code } = (await res.json()) as { code: string };
    await expectOAuthError(await redeem({ code, client_id: app.clientId }), 400, 'invalid_grant', 'code_verifier is required for this code');
    const token = await accessToken(await redeem({ code, client_id: app.clientId, code_verifier: verifier }));
    expect(await (await whois(token)).json()).toEqual({ id: user.id, name: user.name });
  });

  it("refuses a public app's code without a challenge (400), and malformed PKCE parameters", async () => {
    const { app, game } = await gameOfPublicApp();
    const { agent } = await signedInAgent(t);
    const ask = (extra: Record<string, unknown>) => agent.json('POST', `/api/games/${game.id}/codes`, { client_id: app.clientId, scopes: ['userinfo'], ...extra });
    await expectError(await ask({}), 400, NEEDS_PKCE);
    await expectError(await ask({ code_challenge_method: 'S256' }), 400, 'code_challenge_method was sent without a code_challenge');
    await expectError(await ask({ code_challenge: 'short' }), 400, 'code_challenge must be an S256 challenge: 43 base64url characters');
    await expectError(await ask({ code_challenge: pkce().challenge, code_challenge_method: 'plain' }), 400, 'Body field code_challenge_method must be equal to one of the allowed values');
    await expectError(await ask({ code_challenge: pkce().challenge, nonce: 'n'.repeat(513) }), 400, 'Body field nonce must NOT have more than 512 characters');
  });

  it('a confidential app may still get a game code without a challenge', async () => {
    const author = await makeUser(t);
    const client = await makeClient(t, author.id);
    const game = await registerGame({ store: t.store, now: t.clock.now }, { authorId: author.id, title: 'Old Game', url: `${GAME_ORIGIN}/old` });
    const { agent } = await signedInAgent(t);
    const res = await agent.json('POST', `/api/games/${game.id}/codes`, { client_id: client.clientId, scopes: ['userinfo'] });
    const { code } = (await res.json()) as { code: string };
    await accessToken(await redeem({ code, client_id: client.clientId, client_secret: client.clientSecret }));
  });
});

describe('revocation, introspection and the secret', () => {
  it('revokes a token with client_id alone, and refuses a secret', async () => {
    const app = await publicApp();
    const { code, verifier } = await publicCode(app);
    const token = await accessToken(await redeem({ code, client_id: app.clientId, code_verifier: verifier }));
    await expectOAuthError(await form('/api/oauth/revoke', { token, client_id: app.clientId, client_secret: 'x' }), 401, 'invalid_client', NO_SECRET);
    const res = await form('/api/oauth/revoke', { token, client_id: app.clientId });
    expect([res.status, await res.text()]).toEqual([200, '']);
    await expectError(await whois(token), 401, 'Access token has been revoked');
  });

  it('refuses introspection to a public app, with or without a secret, in the body or as Basic', async () => {
    const app = await publicApp();
    const { code, verifier } = await publicCode(app);
    const token = await accessToken(await redeem({ code, client_id: app.clientId, code_verifier: verifier }));
    const message = 'A public app cannot use introspection: it has no secret';
    await expectOAuthError(await form('/api/oauth/introspect', { token, client_id: app.clientId }), 401, 'invalid_client', message);
    await expectOAuthError(await form('/api/oauth/introspect', { token, client_id: app.clientId, client_secret: 'x' }), 401, 'invalid_client', message);
    await expectOAuthError(await form('/api/oauth/introspect', { token }, { Authorization: basic(app.clientId, 'x') }), 401, 'invalid_client', message);
  });

  it('refuses to rotate the secret of a public app (400), which stays without one', async () => {
    const { agent, user } = await signedInAgent(t);
    const { app } = await registerOAuthApp({ store: t.store, now: t.clock.now }, { ownerId: user.id, name: 'SPA', redirectUris: [CALLBACK], public: true });
    await expectError(await agent.json('POST', `/api/apps/${app.clientId}/secret`), 400, NO_SECRET);
    expect((await t.store.apps.getApp(app.clientId))?.secretHash).toBeNull();
  });
});

describe('CORS (x-cors: client)', () => {
  const CORS_HEADERS = ['access-control-allow-origin', 'access-control-allow-credentials', 'access-control-allow-methods', 'access-control-allow-headers', 'access-control-max-age', 'vary'];
  const corsOf = (res: Response) => Object.fromEntries(CORS_HEADERS.flatMap((h) => (res.headers.has(h) ? [[h, res.headers.get(h)]] : [])));

  it('answers preflights of the token, whois and revocation endpoints for any origin', async () => {
    for (const [path, method, methods] of [
      ['/api/oauth/token', 'POST', 'POST'],
      ['/api/oauth/whois', 'GET', 'GET,HEAD'],
      ['/api/oauth/revoke', 'POST', 'POST'],
    ] as const) {
      const res = await fetch(`${t.baseUrl}${path}`, {
        method: 'OPTIONS',
        headers: { Origin: 'https://anywhere.example', 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': 'authorization' },
      });
      expect(res.status, path).toBe(204);
      expect(corsOf(res), path).toEqual({
        'access-control-allow-origin': 'https://anywhere.example',
        'access-control-allow-methods': methods,
        'access-control-allow-headers': 'Authorization,Content-Type',
        'access-control-max-age': '600',
        vary: 'Origin',
      });
    }
  });

  it("lets the public app's redirect-URI origin read the token, whois and revocation answers", async () => {
    const app = await publicApp();
    const { user, code, verifier } = await publicCode(app);
    const res = await redeem({ code, client_id: app.clientId, code_verifier: verifier }, { Origin: SPA });
    expect(corsOf(res)).toEqual({ 'access-control-allow-origin': SPA, vary: 'Origin' });
    const token = await accessToken(res);
    const who = await whois(token, { Origin: SPA });
    expect(corsOf(who)).toEqual({ 'access-control-allow-origin': SPA, vary: 'Origin' });
    expect(await who.json()).toEqual({ id: user.id, name: user.name });
    const revoked = await form('/api/oauth/revoke', { token, client_id: app.clientId }, { Origin: SPA });
    expect(revoked.status).toBe(200);
    expect(corsOf(revoked)).toEqual({ 'access-control-allow-origin': SPA, vary: 'Origin' });
  });

  it("lets the public app's origin read UserInfo (GET and POST) and answers its preflight", async () => {
    const app = await publicApp();
    const { user, verifier } = await publicCode(app);
    const code = await makeCode(t, { userId: user.id, clientId: app.clientId, scope: 'openid profile', redirectUri: CALLBACK, codeChallenge: createHash('sha256').update(verifier).digest('base64url') });
    const exchanged = await redeem({ code, client_id: app.clientId, code_verifier: verifier, redirect_uri: CALLBACK }, { Origin: SPA });
    expect(corsOf(exchanged)).toEqual({ 'access-control-allow-origin': SPA, vary: 'Origin' });
    const { access_token: token, id_token } = (await exchanged.json()) as { access_token: string; id_token: string };
    expect(id_token.split('.')).toHaveLength(3);
    for (const method of ['GET', 'POST']) {
      const res = await fetch(`${t.baseUrl}/api/oauth/userinfo`, { method, headers: { Authorization: `Bearer ${token}`, Origin: SPA } });
      expect(res.status).toBe(200);
      expect(corsOf(res)).toEqual({ 'access-control-allow-origin': SPA, vary: 'Origin' });
      expect(await res.json()).toEqual({ sub: String(user.id), ...profileClaims(t.config.publicUrl, user) });
    }
    const preflight = await fetch(`${t.baseUrl}/api/oauth/userinfo`, {
      method: 'OPTIONS',
      headers: { Origin: SPA, 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'authorization' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(SPA);
    expect(preflight.headers.get('access-control-allow-headers')).toBe('Authorization,Content-Type');
  });

  it("lets the origin of a game by the app's owner read them", async () => {
    const app = await publicApp();
    await registerGame({ store: t.store, now: t.clock.now }, { authorId: app.owner.id, title: 'G', url: `${GAME_ORIGIN}/play?x=1` });
    const { code, verifier } = await publicCode(app, null);
    const res = await redeem({ code, client_id: app.clientId, code_verifier: verifier }, { Origin: GAME_ORIGIN });
    expect(corsOf(res)).toEqual({ 'access-control-allow-origin': GAME_ORIGIN, vary: 'Origin' });
    const who = await whois(await accessToken(res), { Origin: GAME_ORIGIN });
    expect(corsOf(who)).toEqual({ 'access-control-allow-origin': GAME_ORIGIN, vary: 'Origin' });
  });

  it("does not let another origin read a public app's success (only Vary)", async () => {
    const app = await publicApp();
    const { code, verifier } = await publicCode(app);
    const res = await redeem({ code, client_id: app.clientId, code_verifier: verifier }, { Origin: 'https://evil.example' });
    expect(corsOf(res)).toEqual({ vary: 'Origin' });
    const who = await whois(await accessToken(res), { Origin: 'https://spa.example:8443' });
    expect(corsOf(who)).toEqual({ vary: 'Origin' });
  });

  it("does not let even its redirect-URI origin read a confidential app's success", async () => {
    const owner = await makeUser(t);
    const client = await makeClient(t, owner.id, [CALLBACK]);
    await registerGame({ store: t.store, now: t.clock.now }, { authorId: owner.id, title: 'G', url: `${GAME_ORIGIN}/c` });
    const code = await makeCode(t, { userId: owner.id, clientId: client.clientId });
    const res = await redeem({ code, client_id: client.clientId, client_secret: client.clientSecret }, { Origin: SPA });
    expect(corsOf(res)).toEqual({ vary: 'Origin' });
    const who = await whois(await accessToken(res), { Origin: GAME_ORIGIN });
    expect(corsOf(who)).toEqual({ vary: 'Origin' });
  });

  it('lets any origin read an error', async () => {
    const origin = 'https://anywhere.example';
    const bad = await redeem({ code: 'nope', client_id: 'nope' }, { Origin: origin });
    expect(corsOf(bad)).toEqual({ 'access-control-allow-origin': origin, vary: 'Origin' });
    await expectOAuthError(bad, 401, 'invalid_client', 'client_secret is required');
    const who = await whois('nope', { Origin: origin });
    expect(corsOf(who)).toEqual({ 'access-control-allow-origin': origin, vary: 'Origin' });
    await expectError(who, 401, 'Invalid access token');
    const invalid = await fetch(`${t.baseUrl}/api/oauth/revoke`, { method: 'POST', headers: { Origin: origin, 'Content-Type': 'application/json' }, body: '{' });
    expect(invalid.status).toBe(400);
    expect(corsOf(invalid)).toEqual({ 'access-control-allow-origin': origin, vary: 'Origin' });
  });

  it("sends no CORS header and no Vary without an Origin: the seed's clients see the same header set as before", async () => {
    const owner = await makeUser(t);
    const client = await makeClient(t, owner.id);
    const code = await makeCode(t, { userId: owner.id, clientId: client.clientId });
    const res = await redeem({ code, client_id: client.clientId, client_secret: client.clientSecret });
    const names = (r: Response) => [...r.headers.keys()].sort();
    const API = ['connection', 'content-length', 'content-security-policy', 'content-type', 'cross-origin-resource-policy', 'date', 'keep-alive', 'referrer-policy', 'strict-transport-security', 'x-content-type-options'];
    expect(names(res)).toEqual([...API, 'cache-control', 'pragma'].sort());
    const token = await accessToken(res);
    const who = await whois(token);
    expect(names(who)).toEqual([...API, 'cache-control'].sort());
    const error = await whois('nope');
    expect(names(error)).toEqual([...API, 'www-authenticate'].sort());
    // The public app's answers too.
    const app = await publicApp();
    const pub = await publicCode(app);
    const pubRes = await redeem({ code: pub.code, client_id: app.clientId, code_verifier: pub.verifier });
    expect(names(pubRes)).toEqual([...API, 'cache-control', 'pragma'].sort());
  });

  it('never allows credentials, and sends nothing for an OPTIONS without an Origin', async () => {
    const res = await fetch(`${t.baseUrl}/api/oauth/token`, { method: 'OPTIONS', headers: { 'Access-Control-Request-Method': 'POST' } });
    expect(corsOf(res)).toEqual({});
    expect(res.status).toBe(405);
    const anon = await new Agent(t).fetch('/api/oauth/whois', { headers: { Origin: SPA } });
    expect(anon.headers.get('access-control-allow-credentials')).toBeNull();
  });
});
