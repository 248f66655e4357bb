/** The traditional flow: getAuthorize (consent page) and postAuthorize (the decision). */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, makeClient, makeUser, oauthErrorBody, signedInAgent, startServer, tokenRequest, type TestClient, type TestServer, TEST_PASSWORD } from '../helpers.js';

let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(async () => t?.close());

const CALLBACK = 'https://client.example/callback';
const SECOND = 'http://localhost:8080/cb?from=idp';

async function setup(): Promise<{ client: TestClient; owner: { name: string } }> {
  const owner = await makeUser(t);
  const client = await makeClient(t, owner.id, [CALLBACK, SECOND]);
  return { client, owner };
}

function authorizeUrl(params: Record<string, string>): string {
  return `/oauth?${new URLSearchParams(params)}`;
}

function query(location: string | null): Record<string, string> {
  return Object.fromEntries(new URL(location!).searchParams);
}

describe('getAuthorize: client and redirect_uri are checked first, never redirected to', () => {
  it('shows a 400 error page for an unknown client, a missing or unregistered redirect_uri, signed in or not', async () => {
    const { client } = await setup();
    const { agent } = await signedInAgent(t);
    const cases: [Record<string, string>, string][] = [
      [{ client_id: 'unknown', redirect_uri: CALLBACK, scope: 'userinfo' }, 'Unknown client: no app has this client_id'],
      [{ redirect_uri: CALLBACK, scope: 'userinfo' }, 'The request has no client_id'],
      [{ client_id: client.clientId, scope: 'userinfo' }, 'The request has no redirect_uri'],
      [{ client_id: client.clientId, redirect_uri: `${CALLBACK}/evil`, scope: 'nonsense' }, 'The redirect_uri is not registered for this app'],
      [{ client_id: client.clientId, redirect_uri: 'https://CLIENT.example/callback', scope: 'userinfo' }, 'The redirect_uri is not registered for this app'],
    ];
    for (const who of [new Agent(t), agent]) {
      for (const [params, message] of cases) {
        const res = await who.fetch(authorizeUrl(params));
        expect(res.status).toBe(400);
        expect(res.headers.get('location')).toBeNull();
        expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
        expect(await res.text()).toContain(`<p class="error" id="error-message">${message}</p>`);
      }
    }
  });

  it('shows the error page for a repeated parameter', async () => {
    const { client } = await setup();
    const res = await fetch(`${t.baseUrl}/oauth?client_id=${client.clientId}&client_id=x&redirect_uri=${encodeURIComponent(CALLBACK)}`);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
  });
});

describe('getAuthorize: signed out', () => {
  it('sends the visitor to sign in and back to the same request', async () => {
    const { client } = await setup();
    const url = authorizeUrl({ client_id: client.clientId, redirect_uri: CALLBACK, scope: 'userinfo email', state: 'xyz' });
    const agent = new Agent(t);
    const res = await agent.fetch(url);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`/signin?return_to=${encodeURIComponent(url)}`);
    const user = await makeUser(t);
    const signIn = await agent.form('/signin', { name: user.name, password: TEST_PASSWORD, return_to: url });
    expect(signIn.headers.get('location')).toBe(url);
    expect((await agent.fetch(url)).status).toBe(200);
  });
});

describe('getAuthorize: errors of the grant request go back to the client', () => {
  it('redirects with error, error_description and state', async () => {
    const { client } = await setup();
    const { agent } = await signedInAgent(t);
    const cases: [Record<string, string>, string, string][] = [
      [{ scope: 'userinfo admin' }, 'invalid_scope', 'Unknown scope "admin"'],
      [{ scope: 'email' }, 'invalid_scope', 'The email scope requires the userinfo scope'],
      [{ scope: '' }, 'invalid_scope', 'No scope requested'],
      [{ scope: 'userinfo', response_type: 'token' }, 'unsupported_response_type', 'Only response_type=code is supported'],
      [{ scope: 'userinfo', code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }, 'invalid_request', 'Only the S256 code_challenge_method is supported'],
      [{ scope: 'userinfo', code_challenge: 'short' }, 'invalid_request', 'code_challenge must be an S256 challenge: 43 base64url characters'],
    ];
    for (const [params, error, description] of cases) {
      const res = await agent.fetch(authorizeUrl({ client_id: client.clientId, redirect_uri: CALLBACK, state: 's t', ...params }));
      expect(res.status).toBe(302);
      const location = res.headers.get('location')!;
      expect(location.startsWith(`${CALLBACK}?`)).toBe(true);
      expect(query(location)).toEqual({ error, error_description: description, state: 's t', iss: t.config.publicUrl });
    }
  });
});

describe('getAuthorize: the consent page', () => {
  it("names the app, its owner and each scope; can't be framed; sends no referrer; carries a CSRF token", async () => {
    const { client, owner } = await setup();
    const { agent, user } = await signedInAgent(t);
    const res = await agent.fetch(authorizeUrl({ response_type: 'code', client_id: client.clientId, redirect_uri: SECOND, scope: 'email userinfo', state: 'a"b<c' }));
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self' http://localhost:8080;");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = await res.text();
    expect(body).toContain('<h1><span id="app-name">Test App</span> wants to use your account</h1>');
    expect(body).toContain(`An app by <strong id="app-owner">${owner.name}</strong>.`);
    expect(body).toContain(`Signed in as <strong id="consent-user">${user.name}</strong>.`);
    // Where either button sends the person: the redirect URI's host.
    expect(body).toContain('Either way, you will be sent to <strong id="redirect-host">localhost:8080</strong>.');
    expect(body).toContain('<li data-scope="userinfo">See your user id, name and profile picture <code>userinfo</code></li>');
    expect(body).toContain('<li data-scope="email">See your email address <code>email</code></li>');
    expect(body).toContain('<input type="hidden" name="state" value="a&quot;b&lt;c">');
    expect(body).toMatch(/<input type="hidden" name="_csrf" value="[\w-]+">/);
  });
});

describe('"Not you?" on the consent page', () => {
  it('signs out and goes on to sign in for the same request; postSignOut follows only a path of this service', async () => {
    const { client } = await setup();
    const { agent } = await signedInAgent(t);
    const request = authorizeUrl({ response_type: 'code', client_id: client.clientId, redirect_uri: SECOND, scope: 'userinfo', state: 's' });
    const page = await (await agent.fetch(request)).text();
    const action = /<form method="post" action="([^"]*)" class="inline"><input type="hidden" name="_csrf" value="[\w-]+"><button type="submit" id="not-you"/.exec(page)![1]!.replace(/&amp;/g, '&');
    expect(action).toBe(`/signout?return_to=${encodeURIComponent(`/signin?return_to=${encodeURIComponent(request)}`)}`);
    const out = await agent.form(action, {});
    expect([out.status, out.headers.get('location')]).toEqual([303, `/signin?return_to=${encodeURIComponent(request)}`]);
    expect((await agent.fetch('/api/account')).status).toBe(401);

    for (const elsewhere of ['https://evil.example/', '//evil.example/x', '/\\evil.example']) {
      const { agent: other } = await signedInAgent(t);
      const res = await other.form(`/signout?return_to=${encodeURIComponent(elsewhere)}`, {});
      expect([res.status, res.headers.get('location')]).toEqual([303, '/']);
    }
  });
});

describe('postAuthorize', () => {
  async function consent(agent: Agent, fields: Record<string, string>): Promise<Response> {
    return agent.form('/oauth', fields);
  }

  it('Authorize redirects with code and state; the code is bound to the redirect_uri used', async () => {
    const { client } = await setup();
    const { agent, user } = await signedInAgent(t);
    const res = await consent(agent, { client_id: client.clientId, redirect_uri: SECOND, scope: 'userinfo email', state: 'xyz', decision: 'authorize' });
    expect(res.status).toBe(302);
    const location = res.headers.get('location')!;
    expect(location).toMatch(/^http:\/\/localhost:8080\/cb\?from=idp&code=[\w-]{43}&state=xyz&iss=http%3A%2F%2Flocalhost%3A3000$/);
    const { code } = query(location);
    const base = { grant_type: 'authorization_code', code: code!, client_id: client.clientId, client_secret: client.clientSecret };
    const mismatch = await tokenRequest(t, { ...base, redirect_uri: CALLBACK });
    expect([mismatch.status, await mismatch.json()]).toEqual([400, oauthErrorBody('invalid_grant', 'redirect_uri does not match the one the code was issued for')]);
    const ok = await tokenRequest(t, { ...base, redirect_uri: SECOND });
    const { access_token } = (await ok.json()) as { access_token: string };
    const whois = await fetch(`${t.baseUrl}/api/oauth/whois`, { headers: { Authorization: `Bearer ${access_token}` } });
    expect(await whois.json()).toEqual({ id: user.id, name: user.name, email: user.email });
  });

  it('binds a PKCE S256 challenge to the code', async () => {
    const { client } = await setup();
    const { agent } = await signedInAgent(t);
    const verifier = 'v'.repeat(50);
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const res = await consent(agent, { client_id: client.clientId, redirect_uri: CALLBACK, scope: 'userinfo', code_challenge: challenge, code_challenge_method: 'S256', decision: 'authorize' });
    const { code } = query(res.headers.get('location'));
    const base = { grant_type: 'authorization_code', code: code!, client_id: client.clientId, client_secret: client.clientSecret };
    expect((await tokenRequest(t, base)).status).toBe(400);
    expect((await tokenRequest(t, { ...base, code_verifier: verifier })).status).toBe(200);
  });

  it('Cancel redirects with access_denied and the exact description', async () => {
    const { client } = await setup();
    const { agent } = await signedInAgent(t);
    const res = await consent(agent, { client_id: client.clientId, redirect_uri: CALLBACK, scope: 'userinfo', state: 'xyz', decision: 'cancel' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`${CALLBACK}?error=access_denied&error_description=The+user+did+not+consent.&state=xyz&iss=${encodeURIComponent(t.config.publicUrl)}`);
    expect(query(res.headers.get('location'))).toEqual({ error: 'access_denied', error_description: 'The user did not consent.', state: 'xyz', iss: t.config.publicUrl });
  });

  it('refuses a form without the CSRF token (403 page) and a tampered redirect_uri (400 page, no redirect)', async () => {
    const { client } = await setup();
    const { agent } = await signedInAgent(t);
    const forged = await agent.fetch('/oauth', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: client.clientId, redirect_uri: CALLBACK, scope: 'userinfo', decision: 'authorize' }).toString(),
    });
    expect(forged.status).toBe(403);
    expect(forged.headers.get('location')).toBeNull();
    expect(await forged.text()).toContain('Invalid CSRF token');
    const tampered = await consent(agent, { client_id: client.clientId, redirect_uri: 'https://evil.example/cb', scope: 'userinfo', decision: 'authorize' });
    expect(tampered.status).toBe(400);
    expect(tampered.headers.get('location')).toBeNull();
    expect(await tampered.text()).toContain('The redirect_uri is not registered for this app');
  });

  it('checks the scope again: invalid_scope by redirect', async () => {
    const { client } = await setup();
    const { agent } = await signedInAgent(t);
    const res = await consent(agent, { client_id: client.clientId, redirect_uri: CALLBACK, scope: 'admin', state: 's', decision: 'authorize' });
    expect(query(res.headers.get('location'))).toEqual({ error: 'invalid_scope', error_description: 'Unknown scope "admin"', state: 's', iss: t.config.publicUrl });
  });
});
