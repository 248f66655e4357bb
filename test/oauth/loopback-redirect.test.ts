/**
 * RFC 8252 7.3: a registered loopback IP literal redirect URI matches any port at authorization;
 * the code is bound to the exact URI used, and the token request must repeat it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redirectUriMatches } from '../../src/oauth/redirect-uris.js';
import { makeClient, makeUser, oauthErrorBody, signedInAgent, startServer, tokenRequest, type TestClient, type TestServer } from '../helpers.js';

let t: TestServer;
let client: TestClient;
beforeAll(async () => {
  t = await startServer();
  const owner = await makeUser(t);
  client = await makeClient(t, owner.id, ['http://127.0.0.1/callback', 'http://[::1]/cb?app=1', 'http://localhost:8080/cb', 'http://127.0.0.1:7000/fixed']);
});
afterAll(async () => t?.close());

describe('redirectUriMatches', () => {
  it('IPv4 and IPv6 loopback literals match on any port, with or without one registered', () => {
    expect(redirectUriMatches('http://127.0.0.1/callback', 'http://127.0.0.1:51234/callback')).toBe(true);
    expect(redirectUriMatches('http://127.0.0.1/callback', 'http://127.0.0.1/callback')).toBe(true);
    expect(redirectUriMatches('http://[::1]/cb?app=1', 'http://[::1]:65535/cb?app=1')).toBe(true);
    expect(redirectUriMatches('http://127.0.0.1:7000/fixed', 'http://127.0.0.1:7001/fixed')).toBe(true);
  });

  it('everything but the port stays exact', () => {
    const registered = 'http://127.0.0.1/callback';
    for (const requested of [
      'http://127.0.0.1:5000/callback/',
      'http://127.0.0.1:5000/Callback',
      'http://127.0.0.1:5000/callback?x=1',
      'http://127.0.0.1:5000/%63allback',
      'http://127.0.0.1:5000/a/../callback',
      'http://127.0.0.2:5000/callback',
      'http://[::1]:5000/callback',
      'https://127.0.0.1:5000/callback',
      'http://127.0.0.1:0/callback',
      'http://127.0.0.1:99999/callback',
      'http://127.0.0.1:5000@evil.example/callback',
      'http://user@127.0.0.1:5000/callback',
      'http://127.0.0.1:5000/callback#frag',
    ]) {
      expect(redirectUriMatches(registered, requested), requested).toBe(false);
    }
  });

  it('localhost and every other host stay exact-match, port included', () => {
    expect(redirectUriMatches('http://localhost:8080/cb', 'http://localhost:8081/cb')).toBe(false);
    expect(redirectUriMatches('http://localhost/cb', 'http://localhost:8081/cb')).toBe(false);
    expect(redirectUriMatches('https://client.example/cb', 'https://client.example:444/cb')).toBe(false);
  });
});

describe('the traditional flow with a loopback redirect URI on an ephemeral port', () => {
  it('shows the consent page, redirects to the exact port, and the code needs that exact URI at the token endpoint', async () => {
    const { agent } = await signedInAgent(t);
    const used = 'http://127.0.0.1:53682/callback';
    const page = await agent.fetch(`/oauth?${new URLSearchParams({ client_id: client.clientId, redirect_uri: used, scope: 'userinfo', state: 's' })}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain('form-action \'self\' http://127.0.0.1:53682;');
    const res = await agent.form('/oauth', { client_id: client.clientId, redirect_uri: used, scope: 'userinfo', state: 's', decision: 'authorize' });
    expect([res.status, res.status === 302 ? '' : await res.text()]).toEqual([302, '']);
    const location = res.headers.get('location')!;
    expect(location).toMatch(/^http:\/\/127\.0\.0\.1:53682\/callback\?code=[\w-]{43}&state=s&iss=/);
    const code = new URL(location).searchParams.get('code')!;
    const base = { grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: client.clientSecret };

    const omitted = await tokenRequest(t, base);
    expect([omitted.status, await omitted.json()]).toEqual([
      400,
      oauthErrorBody('invalid_grant', 'redirect_uri is required: this code was issued for a loopback redirect URI on a port of its own'),
    ]);
    for (const other of ['http://127.0.0.1/callback', 'http://127.0.0.1:53683/callback']) {
      const wrong = await tokenRequest(t, { ...base, redirect_uri: other });
      expect([wrong.status, await wrong.json()]).toEqual([400, oauthErrorBody('invalid_grant', 'redirect_uri does not match the one the code was issued for')]);
    }
    const ok = await tokenRequest(t, { ...base, redirect_uri: used });
    expect(ok.status).toBe(200);
  });

  it('the IPv6 literal works the same way; its registered query stays part of the match', async () => {
    const { agent } = await signedInAgent(t);
    const good = await agent.fetch(`/oauth?${new URLSearchParams({ client_id: client.clientId, redirect_uri: 'http://[::1]:4000/cb?app=1', scope: 'userinfo' })}`);
    expect(good.status).toBe(200);
    const bad = await agent.fetch(`/oauth?${new URLSearchParams({ client_id: client.clientId, redirect_uri: 'http://[::1]:4000/cb?app=2', scope: 'userinfo' })}`);
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('The redirect_uri is not registered for this app');
  });

  it('a localhost redirect URI on another port is refused with the error page, never redirected to', async () => {
    const { agent } = await signedInAgent(t);
    const res = await agent.fetch(`/oauth?${new URLSearchParams({ client_id: client.clientId, redirect_uri: 'http://localhost:9999/cb', scope: 'userinfo' })}`);
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });

  it('a code for a registered URI exactly as registered still needs no redirect_uri at the token endpoint (unchanged)', async () => {
    const { agent } = await signedInAgent(t);
    const res = await agent.form('/oauth', { client_id: client.clientId, redirect_uri: 'http://127.0.0.1/callback', scope: 'userinfo', decision: 'authorize' });
    const code = new URL(res.headers.get('location')!).searchParams.get('code')!;
    const ok = await tokenRequest(t, { grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: client.clientSecret });
    expect(ok.status).toBe(200);
  });
});
