/** exportAccount ("Download my data"): one JSON attachment with the user's data and no secrets. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicUser } from '../fixtures/users.js';
import { Agent, makeClient, makeUser, signedInAgent, startServer, TEST_PASSWORD, type TestServer } from '../helpers.js';
import { NOTHING } from '../../src/domain/security-events.js';

let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(async () => t?.close());

const CALLBACK = 'https://client.example/callback';

describe('exportAccount', () => {
  it('is an attachment with profile, email, apps and games owned, grants, sessions, sign-ins, passkeys, the authenticator app and linked upstream identities', async () => {
    const { agent, user } = await signedInAgent(t);
    await t.store.users.updateUser(user.id, { bio: 'hello' });
    const own = await makeClient(t, user.id, [CALLBACK]);
    const game = await t.store.games.createGame({ authorId: user.id, title: 'Mine', url: 'https://game.example/', createdAt: t.clock.now() });
    const owner = await makeUser(t);
    const other = await makeClient(t, owner.id, [CALLBACK]);
    await agent.form('/oauth', { decision: 'authorize', client_id: other.clientId, redirect_uri: CALLBACK, scope: 'userinfo email' });
    const passkey = await t.store.passkeys.createPasskey({
      userId: user.id,
      credentialId: 'credential-id-of-the-phone',
      publicKey: 'public-key-of-the-phone',
      counter: 0,
      transports: ['internal'],
      deviceType: 'singleDevice',
      backedUp: false,
      name: 'Phone',
      createdAt: t.clock.now(),
    });
    const seed = 'sealed-seed-of-the-authenticator-app';
    const codeHashes = ['recovery-code-hash-1', 'recovery-code-hash-2'];
    await t.store.authenticatorApp.savePendingTotp(user.id, seed, t.clock.now());
    await t.store.authenticatorApp.confirmTotp(user.id, seed, 1, t.clock.now(), codeHashes, NOTHING);
    // Two linked upstream identities: one with an address and used since, one with neither.
    const upstream = { kind: 'oidc' as const, preset: null, authorizationEndpoint: null, tokenEndpoint: null, userinfoEndpoint: null, claimMapping: null, scopes: ['openid', 'email'], clientSecretSealed: 'sealed-upstream-secret', enabled: true, trustMfa: false, createdAt: t.clock.now() };
    await t.store.upstreams.addUpstream({ ...upstream, slug: 'export-acme', name: 'Export Acme', issuer: 'https://acme.example', clientId: 'acme-client' });
    await t.store.upstreams.addUpstream({ ...upstream, slug: 'export-globex', name: 'Export Globex', issuer: 'https://globex.example', clientId: 'globex-client' });
    const acme = await t.store.upstreamIdentities.linkUpstreamIdentity({ userId: user.id, upstreamSlug: 'export-acme', subject: 'acme-subject-1', email: 'ada@acme.example', createdAt: t.clock.now() - 2 });
    await t.store.upstreamIdentities.touchUpstreamIdentity(acme.id, t.clock.now() + 2);
    const globex = await t.store.upstreamIdentities.linkUpstreamIdentity({ userId: user.id, upstreamSlug: 'export-globex', subject: 'globex-subject-1', email: null, createdAt: t.clock.now() - 1 });
    // The sign-in history, newest first: the agent's own sign-in, one recorded from elsewhere and one through an upstream.
    const [signedIn] = await t.store.signIns.listSignIns(user.id, 10);
    await t.store.signIns.recordSignIn(user.id, { at: t.clock.now() + 1, ip: '203.0.113.7', userAgent: 'Browser/2 (elsewhere)', upstream: null }, 20);
    await t.store.signIns.recordSignIn(user.id, { at: t.clock.now() + 2, ip: '203.0.113.8', userAgent: 'Browser/3', upstream: 'Export Acme' }, 20);
    const res = await agent.fetch('/api/account/export');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="account-${user.id}.json"`);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const text = await res.text();
    const body = JSON.parse(text) as Record<string, unknown>;
    const now = t.clock.now();
    expect(body).toEqual({
      exported_at: now,
      user: publicUser(user, { bio: 'hello' }),
      email: user.email,
      created_at: user.createdAt,
      apps: [{ client_id: own.clientId, name: 'Test App', public: false, redirect_uris: [CALLBACK], post_logout_redirect_uris: [], grant_types: ['authorization_code'], created_at: now }],
      games: [{ id: game.id, title: 'Mine', url: 'https://game.example/', author: { id: user.id, name: user.name }, created_at: now }],
      grants: [
        { client_id: other.clientId, app_name: 'Test App', owner: { id: owner.id, name: owner.name }, scopes: ['userinfo', 'email'], granted_at: now, last_used_at: now },
      ],
      // As listSessions lists it: the address it signed in from is the sign-in history's.
      sessions: [{ id: expect.stringMatching(/^[\w-]{22}$/), started_at: now, last_seen_at: now, user_agent: signedIn!.userAgent, ip: '127.0.0.1', current: true }],
      sign_ins: [
        { at: now + 2, ip: '203.0.113.8', user_agent: 'Browser/3', upstream: 'Export Acme' },
        { at: now + 1, ip: '203.0.113.7', user_agent: 'Browser/2 (elsewhere)' },
        { at: now, ip: '127.0.0.1', user_agent: signedIn!.userAgent },
      ],
      passkeys: [{ id: passkey.id, name: 'Phone', created_at: now, synced: false }],
      authenticator_app: { enabled: true, since: now, recovery_codes_left: 2 },
      moderation_actions: [],
      upstream_identities: [
        { id: acme.id, upstream: 'export-acme', upstream_name: 'Export Acme', subject: 'acme-subject-1', email: 'ada@acme.example', linked_at: now - 2, last_used_at: now + 2 },
        { id: globex.id, upstream: 'export-globex', upstream_name: 'Export Globex', subject: 'globex-subject-1', linked_at: now - 1 },
      ],
    });
    // No secret of any kind.
    const stored = await t.store.users.getUser(user.id);
    const app = await t.store.apps.getApp(own.clientId);
    for (const secret of [TEST_PASSWORD, stored!.passwordHash, own.clientSecret, app!.secretHash, agent.cookies.get('idp.sid')!, passkey.credentialId, passkey.publicKey, seed, ...codeHashes, 'sealed-upstream-secret']) {
      expect(text).not.toContain(secret);
    }
  });

  it('says the authenticator app is off while no setup is confirmed', async () => {
    const { agent, user } = await signedInAgent(t);
    await t.store.authenticatorApp.savePendingTotp(user.id, 'sealed-seed-of-a-setup', t.clock.now());
    const body = (await (await agent.fetch('/api/account/export')).json()) as Record<string, unknown>;
    expect(body.authenticator_app).toEqual({ enabled: false, recovery_codes_left: 0 });
  });

  it('is 401 signed out', async () => {
    const res = await new Agent(t).fetch('/api/account/export');
    expect([res.status, await res.json()]).toEqual([401, { message: 'Sign in first' }]);
  });
});
