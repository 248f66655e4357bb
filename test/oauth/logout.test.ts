/** OpenID Connect RP-initiated logout: GET and POST /oauth/logout, and the person's confirmation. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerOAuthApp } from '../../src/oauth/clients.js';
import { Agent, makeClient, makeUser, startServer, tokenRequest, type TestClient, type TestServer } from '../helpers.js';
import type { UserRecord } from '../../src/domain/users.js';

let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(async () => t?.close());

interface Setup {
  user: UserRecord;
  agent: Agent;
  client: TestClient;
  idToken: string;
}

/** A signed-in person, an app, and an ID token the app got for the person. */
async function setup(): Promise<Setup> {
  const owner = await makeUser(t);
  const client = await makeClient(t, owner.id);
  const user = await makeUser(t);
  const agent = new Agent(t);
  await agent.signIn(user);
  const res = await agent.form('/oauth', { response_type: 'code', client_id: client.clientId, redirect_uri: client.redirectUri, scope: 'openid', decision: 'authorize' });
  const code = new URL(res.headers.get('location')!).searchParams.get('code')!;
  const token = await tokenRequest(t, { grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: client.clientSecret });
  const { id_token } = (await token.json()) as { id_token: string };
  return { user, agent, client, idToken: id_token };
}

async function signedIn(agent: Agent): Promise<boolean> {
  return ((await (await agent.fetch('/api/session')).json()) as { signed_in: boolean }).signed_in;
}

const logoutUrl = (params: Record<string, string>): string => `/oauth/logout?${new URLSearchParams(params)}`;

async function errorPage(res: Response, message: string): Promise<void> {
  expect(res.status).toBe(400);
  expect(res.headers.get('location')).toBeNull();
  expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(await res.text()).toContain(`<p class="error" id="error-message">${message}</p>`);
}

describe('GET /oauth/logout', () => {
  it('signs the person the ID token names out at once, and says so', async () => {
    const { agent, idToken } = await setup();
    const res = await agent.fetch(logoutUrl({ id_token_hint: idToken }));
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const page = await res.text();
    expect(page).toContain('<h1>You are signed out</h1>');
    expect(await signedIn(agent)).toBe(false);
  });

  it('accepts an expired ID token as the hint', async () => {
    const { agent, idToken } = await setup();
    t.clock.advance(3_600_000);
    const res = await agent.fetch(logoutUrl({ id_token_hint: idToken }));
    expect(res.status).toBe(200);
    expect(await signedIn(agent)).toBe(false);
  });

  it('asks first when the hint names someone else, or there is no hint; Sign out ends the session, Stay keeps it', async () => {
    const { agent, client } = await setup();
    const other = await setup();
    for (const params of [{ id_token_hint: other.idToken }, { client_id: client.clientId, state: 'x' }, {}] as Record<string, string>[]) {
      const res = await agent.fetch(logoutUrl(params));
      expect(res.status).toBe(200);
      const page = await res.text();
      expect(page).toContain('<h1>Sign out?</h1>');
      expect(page).toContain('<form method="post" action="/oauth/logout/confirm" class="actions">');
      for (const [name, value] of Object.entries(params)) expect(page).toContain(`<input type="hidden" name="${name}" value="${value}">`);
      expect(await signedIn(agent)).toBe(true);
    }
    const stay = await agent.form('/oauth/logout/confirm', { decision: 'stay', client_id: client.clientId });
    expect(stay.status).toBe(200);
    expect(await stay.text()).toContain('<h1>You are still signed in</h1>');
    expect(await signedIn(agent)).toBe(true);
    const out = await agent.form('/oauth/logout/confirm', { decision: 'signout', client_id: client.clientId });
    expect(out.status).toBe(200);
    expect(await out.text()).toContain('<h1>You are signed out</h1>');
    expect(await signedIn(agent)).toBe(false);
  });

  it('refuses the confirmation without the CSRF token', async () => {
    const { agent, client } = await setup();
    const res = await agent.form('/oauth/logout/confirm', { decision: 'signout', client_id: client.clientId, _csrf: 'forged' });
    expect(res.status).toBe(403);
    expect(await signedIn(agent)).toBe(true);
  });

  it('shows the signed-out page to a visitor who is not signed in', async () => {
    const res = await new Agent(t).fetch('/oauth/logout');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<h1>You are signed out</h1>');
  });

  it('refuses a bad hint, an unknown app, a mismatched client_id and a post-logout address without an app (400, no redirect)', async () => {
    const { agent, client, idToken } = await setup();
    const [header, payload] = idToken.split('.');
    const forged = `${header}.${payload}.${'A'.repeat(342)}`;
    await errorPage(await agent.fetch(logoutUrl({ id_token_hint: 'not-a-jwt' })), 'The id_token_hint is not an ID token this service issued');
    await errorPage(await agent.fetch(logoutUrl({ id_token_hint: forged })), 'The id_token_hint is not an ID token this service issued');
    await errorPage(await agent.fetch(logoutUrl({ client_id: 'nope' })), 'Unknown client: no app has this client_id');
    await errorPage(
      await agent.fetch(logoutUrl({ id_token_hint: idToken, client_id: 'other' })),
      'client_id does not match the audience of the id_token_hint',
    );
    await errorPage(
      await agent.fetch(logoutUrl({ post_logout_redirect_uri: 'https://client.example/bye' })),
      'A post_logout_redirect_uri needs an id_token_hint or a client_id that names the app',
    );
    await errorPage(
      await agent.fetch(logoutUrl({ client_id: client.clientId, post_logout_redirect_uri: 'https://client.example/bye' })),
      'The post_logout_redirect_uri is not registered for this app',
    );
    expect(await signedIn(agent)).toBe(true);
  });
});

describe('post_logout_redirect_uri', () => {
  const BYE = 'https://client.example/signed-out?from=idp';

  async function appWithLogoutUri(postLogoutRedirectUris = [BYE]): Promise<{ clientId: string; clientSecret: string }> {
    const owner = await makeUser(t);
    const { app, clientSecret } = await registerOAuthApp(
      { store: t.store, now: t.clock.now },
      { ownerId: owner.id, name: 'Logout App', redirectUris: ['https://client.example/callback'], postLogoutRedirectUris },
    );
    return { clientId: app.clientId, clientSecret };
  }

  /** The ID token `app` gets for `agent`'s signed-in person (issued now: it expires in 10 minutes). */
  async function idTokenFor(agent: Agent, app: { clientId: string; clientSecret: string }): Promise<string> {
    const res = await agent.form('/oauth', { response_type: 'code', client_id: app.clientId, redirect_uri: 'https://client.example/callback', scope: 'openid', decision: 'authorize' });
    const code = new URL(res.headers.get('location')!).searchParams.get('code')!;
    const token = await tokenRequest(t, { grant_type: 'authorization_code', code, client_id: app.clientId, client_secret: app.clientSecret });
    return ((await token.json()) as { id_token: string }).id_token;
  }

  /** The page's `<section class="consent">`, and its CSRF token. */
  async function consentSection(res: Response): Promise<{ section: string; csrf: string }> {
    const page = await res.text();
    return {
      section: page.slice(page.indexOf('<section class="consent">'), page.indexOf('</section>') + '</section>'.length),
      csrf: /<input type="hidden" name="_csrf" value="([\w-]+)">/.exec(page)?.[1] ?? '',
    };
  }

  it('sends the browser to the registered address with the state, after signing out the person the hint names', async () => {
    const app = await appWithLogoutUri();
    const user = await makeUser(t);
    const agent = new Agent(t);
    await agent.signIn(user);
    const res = await agent.form('/oauth', { response_type: 'code', client_id: app.clientId, redirect_uri: 'https://client.example/callback', scope: 'openid', decision: 'authorize' });
    const code = new URL(res.headers.get('location')!).searchParams.get('code')!;
    const token = await tokenRequest(t, { grant_type: 'authorization_code', code, client_id: app.clientId, client_secret: app.clientSecret });
    const { id_token } = (await token.json()) as { id_token: string };
    const out = await agent.fetch(logoutUrl({ id_token_hint: id_token, post_logout_redirect_uri: BYE, state: 'st 1' }));
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe('https://client.example/signed-out?from=idp&state=st+1');
    expect(await signedIn(agent)).toBe(false);
  });

  it('asks first without a hint, then redirects either way; the page may post to the app (form-action)', async () => {
    const app = await appWithLogoutUri();
    const { agent } = { agent: new Agent(t) };
    await agent.signIn(await makeUser(t));
    const page = await agent.fetch(logoutUrl({ client_id: app.clientId, post_logout_redirect_uri: BYE }));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self' https://client.example;");
    const stay = await agent.form('/oauth/logout/confirm', { decision: 'stay', client_id: app.clientId, post_logout_redirect_uri: BYE });
    expect([stay.status, stay.headers.get('location')]).toEqual([303, BYE]);
    expect(await signedIn(agent)).toBe(true);
    const out = await agent.form('/oauth/logout/confirm', { decision: 'signout', client_id: app.clientId, post_logout_redirect_uri: BYE, state: 'x' });
    expect([out.status, out.headers.get('location')]).toEqual([303, `${BYE}&state=x`]);
    expect(await signedIn(agent)).toBe(false);
  });

  it('shows a signed-out visitor without a hint the signed-out page with a button on to the app, and redirects only when it is pressed', async () => {
    const app = await appWithLogoutUri();
    const params = { client_id: app.clientId, post_logout_redirect_uri: BYE, state: 'st 1' };
    for (const send of [
      (visitor: Agent) => visitor.fetch(logoutUrl(params)),
      (visitor: Agent) => visitor.fetch('/oauth/logout', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(params).toString() }),
    ]) {
      const visitor = new Agent(t);
      const res = await send(visitor);
      expect(res.status).toBe(200);
      expect(res.headers.get('location')).toBeNull();
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('content-security-policy')).toContain("form-action 'self' https://client.example;");
      const page = await res.text();
      const csrf = /<input type="hidden" name="_csrf" value="([\w-]+)">/.exec(page)?.[1];
      expect(csrf).toBeDefined();
      expect(page).toContain('<title>Signed out</title>');
      expect(page.slice(page.indexOf('<section class="consent">'), page.indexOf('</section>') + '</section>'.length)).toBe(`<section class="consent">
<h1>You are signed out</h1>
<p id="notice">You are not signed in to this service. <strong id="app-name">Logout App</strong> asks to take you back to <strong id="destination">client.example</strong>.</p>
<form method="post" action="/oauth/logout/confirm" class="actions">
<input type="hidden" name="_csrf" value="${csrf}">
<input type="hidden" name="post_logout_redirect_uri" value="https://client.example/signed-out?from=idp"><input type="hidden" name="client_id" value="${app.clientId}"><input type="hidden" name="state" value="st 1">
<button type="submit" name="decision" value="stay" id="continue">Continue to client.example</button>
</form>
</section>`);
      const on = await visitor.form('/oauth/logout/confirm', { _csrf: csrf!, post_logout_redirect_uri: BYE, client_id: app.clientId, state: 'st 1', decision: 'stay' });
      expect([on.status, on.headers.get('location')]).toEqual([303, 'https://client.example/signed-out?from=idp&state=st+1']);
    }
  });

  it('redirects a signed-out visitor at once only with a hint that has not expired: at its exp, the page that names the host', async () => {
    const app = await appWithLogoutUri();
    const agent = new Agent(t);
    const user = await makeUser(t);
    await agent.signIn(user);
    const idToken = await idTokenFor(agent, app);
    const params = { id_token_hint: idToken, post_logout_redirect_uri: BYE, state: 'x' };
    t.clock.advance(10 * 60 * 1000 - 1000);
    const current = await new Agent(t).fetch(logoutUrl(params));
    expect([current.status, current.headers.get('location')]).toEqual([303, `${BYE}&state=x`]);

    t.clock.advance(1000);
    const visitor = new Agent(t);
    const res = await visitor.fetch(logoutUrl(params));
    expect(res.status).toBe(200);
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-security-policy')).toContain("form-action 'self' https://client.example;");
    const { section, csrf } = await consentSection(res);
    expect(section).toBe(`<section class="consent">
<h1>You are signed out</h1>
<p id="notice">You are not signed in to this service. <strong id="app-name">Logout App</strong> asks to take you back to <strong id="destination">client.example</strong>.</p>
<form method="post" action="/oauth/logout/confirm" class="actions">
<input type="hidden" name="_csrf" value="${csrf}">
<input type="hidden" name="id_token_hint" value="${idToken}"><input type="hidden" name="post_logout_redirect_uri" value="https://client.example/signed-out?from=idp"><input type="hidden" name="state" value="x">
<button type="submit" name="decision" value="stay" id="continue">Continue to client.example</button>
</form>
</section>`);
    const on = await visitor.form('/oauth/logout/confirm', { _csrf: csrf, ...params, decision: 'stay' });
    expect([on.status, on.headers.get('location')]).toEqual([303, `${BYE}&state=x`]);
    // The person's own session, in their own browser, was never touched.
    expect(await signedIn(agent)).toBe(true);
  });

  it('asks a signed-in person whose expired hint names them before signing out, with buttons that name the host', async () => {
    const app = await appWithLogoutUri();
    const agent = new Agent(t);
    const user = await makeUser(t);
    await agent.signIn(user);
    const idToken = await idTokenFor(agent, app);
    t.clock.advance(60 * 60 * 1000);
    const params = { id_token_hint: idToken, post_logout_redirect_uri: BYE, state: 'x' };
    const res = await agent.fetch(logoutUrl(params));
    expect(res.status).toBe(200);
    expect(res.headers.get('location')).toBeNull();
    const { section, csrf } = await consentSection(res);
    expect(section).toBe(`<section class="consent">
<h1>Sign out?</h1>
<p><strong id="app-name">Logout App</strong> asks to sign you out of this service. You are signed in as <strong>${user.name}</strong>.</p>
<form method="post" action="/oauth/logout/confirm" class="actions">
<input type="hidden" name="_csrf" value="${csrf}">
<input type="hidden" name="id_token_hint" value="${idToken}"><input type="hidden" name="post_logout_redirect_uri" value="https://client.example/signed-out?from=idp"><input type="hidden" name="state" value="x">
<button type="submit" name="decision" value="signout" id="signout">Sign out and continue to client.example</button>
<button type="submit" name="decision" value="stay" id="stay" class="secondary">Stay signed in and continue to client.example</button>
</form>
</section>`);
    expect(await signedIn(agent)).toBe(true);
    const out = await agent.form('/oauth/logout/confirm', { _csrf: csrf, ...params, decision: 'signout' });
    expect([out.status, out.headers.get('location')]).toEqual([303, `${BYE}&state=x`]);
    expect(await signedIn(agent)).toBe(false);
  });

  it('names the host on the "Sign out?" buttons whenever they lead to the app; without an address they say only what they do', async () => {
    const app = await appWithLogoutUri();
    const agent = new Agent(t);
    const user = await makeUser(t);
    await agent.signIn(user);
    const withAddress = await consentSection(await agent.fetch(logoutUrl({ client_id: app.clientId, post_logout_redirect_uri: BYE })));
    expect(withAddress.section).toContain(`<button type="submit" name="decision" value="signout" id="signout">Sign out and continue to client.example</button>
<button type="submit" name="decision" value="stay" id="stay" class="secondary">Stay signed in and continue to client.example</button>`);
    const without = await consentSection(await agent.fetch(logoutUrl({ client_id: app.clientId })));
    expect(without.section).toContain(`<button type="submit" name="decision" value="signout" id="signout">Sign out</button>
<button type="submit" name="decision" value="stay" id="stay" class="secondary">Stay signed in</button>`);
  });

  it("never sends anyone to an address with another app's hint, current or not (400, no redirect)", async () => {
    const mine = await appWithLogoutUri();
    const theirs = await appWithLogoutUri(['https://attacker.example/bye']);
    const agent = new Agent(t);
    await agent.signIn(await makeUser(t));
    const theirHint = await idTokenFor(agent, theirs);
    const visitor = new Agent(t);
    await errorPage(
      await visitor.fetch(logoutUrl({ id_token_hint: theirHint, client_id: mine.clientId, post_logout_redirect_uri: BYE })),
      'client_id does not match the audience of the id_token_hint',
    );
    await errorPage(await visitor.fetch(logoutUrl({ id_token_hint: theirHint, post_logout_redirect_uri: BYE })), 'The post_logout_redirect_uri is not registered for this app');
  });

  it('still redirects a signed-out visitor at once with a valid hint', async () => {
    const app = await appWithLogoutUri();
    const agent = new Agent(t);
    await agent.signIn(await makeUser(t));
    const res = await agent.form('/oauth', { response_type: 'code', client_id: app.clientId, redirect_uri: 'https://client.example/callback', scope: 'openid', decision: 'authorize' });
    const code = new URL(res.headers.get('location')!).searchParams.get('code')!;
    const token = await tokenRequest(t, { grant_type: 'authorization_code', code, client_id: app.clientId, client_secret: app.clientSecret });
    const { id_token } = (await token.json()) as { id_token: string };
    const out = await new Agent(t).fetch(logoutUrl({ id_token_hint: id_token, post_logout_redirect_uri: BYE, state: 'x' }));
    expect([out.status, out.headers.get('location')]).toEqual([303, `${BYE}&state=x`]);
  });

  it('refuses an address registered as a redirect URI but not as a post-logout one, or differing in any character', async () => {
    const app = await appWithLogoutUri();
    for (const uri of ['https://client.example/callback', 'https://client.example/signed-out', `${BYE}&x=1`, BYE.toUpperCase()]) {
      await errorPage(await new Agent(t).fetch(logoutUrl({ client_id: app.clientId, post_logout_redirect_uri: uri })), 'The post_logout_redirect_uri is not registered for this app');
    }
  });
});

describe('POST /oauth/logout', () => {
  it('takes the same parameters as a form', async () => {
    const { agent, idToken } = await setup();
    const res = await agent.fetch('/oauth/logout', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ id_token_hint: idToken }).toString(),
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<h1>You are signed out</h1>');
    expect(await signedIn(agent)).toBe(false);
  });
});
