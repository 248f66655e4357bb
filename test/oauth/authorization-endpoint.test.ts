/**
 * What OpenID certification asks of the endpoints (issue 37), beside what the seed's clients rely
 * on: the authorization request as a form (POST /oauth without `decision`), request objects and a
 * missing response_type refused before anyone signs in, UserInfo's token in a form body, and the
 * seed's successful answers unchanged to the byte.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorDescription } from '../../src/http/error-responses.js';
import { Agent, makeClient, makeCode, makeUser, startServer, tokenRequest, type TestClient, type TestServer } from '../helpers.js';
import { consentFields } from '../oidc-flow.js';

let t: TestServer;
let client: TestClient;
beforeAll(async () => {
  t = await startServer();
  const owner = await makeUser(t);
  client = await makeClient(t, owner.id);
});
afterAll(async () => t?.close());

const ISS = encodeURIComponent('http://localhost:3000');
const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };

function authorizeQuery(extra: Record<string, string>): string {
  return new URLSearchParams({ client_id: client.clientId, redirect_uri: client.redirectUri, ...extra }).toString();
}

/** POSTs a form to /oauth as a relying party's page would: no CSRF token. */
function postAuthorization(agent: Agent, fields: Record<string, string>): Promise<Response> {
  return agent.fetch('/oauth', { method: 'POST', headers: FORM, body: new URLSearchParams(fields).toString() });
}

describe("the seed's successful answers, byte for byte", () => {
  it('the exchange, whois with and without email, and users/info are exactly what the seed answered', async () => {
    const user = await makeUser(t);
    const agent = new Agent(t);
    await agent.signIn(user);
    // The seed's traditional flow: no response_type, the page's decision, then the exchange.
    const page = await agent.fetch(`/oauth?${authorizeQuery({ scope: 'userinfo email', state: 'xyz' })}`);
    expect(page.status).toBe(200);
    const decided = await agent.form('/oauth', { ...consentFields(await page.text()), decision: 'authorize' });
    const code = new URL(decided.headers.get('location')!).searchParams.get('code')!;
    const exchanged = await tokenRequest(t, { grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: client.clientSecret });
    const raw = await exchanged.text();
    expect([exchanged.status, exchanged.headers.get('content-type')]).toEqual([200, 'application/json; charset=utf-8']);
    const token = /^\{"access_token":"([A-Za-z0-9_-]{43})","token_type":"Bearer","expires_in":600\}$/.exec(raw)?.[1];
    expect(token, raw).toBeDefined();

    const whois = await fetch(`${t.baseUrl}/api/oauth/whois`, { headers: { Authorization: `Bearer ${token}` } });
    expect([whois.status, whois.headers.get('content-type'), await whois.text()]).toEqual([
      200,
      'application/json; charset=utf-8',
      `{"id":${user.id},"name":"${user.name}","email":"${user.email}"}`,
    ]);
    const bare = await makeCode(t, { userId: user.id, clientId: client.clientId, scope: 'userinfo' });
    const bareToken = ((await (await tokenRequest(t, { grant_type: 'authorization_code', code: bare, client_id: client.clientId, client_secret: client.clientSecret })).json()) as { access_token: string }).access_token;
    const bareWhois = await fetch(`${t.baseUrl}/api/oauth/whois`, { headers: { Authorization: `Bearer ${bareToken}` } });
    expect(await bareWhois.text()).toBe(`{"id":${user.id},"name":"${user.name}"}`);

    const info = await fetch(`${t.baseUrl}/api/users/info?id=${user.id}`);
    expect([info.status, info.headers.get('content-type'), await info.text()]).toEqual([
      200,
      'application/json; charset=utf-8',
      `{"message":"yes","user":{"name":"${user.name}","id":${user.id},"bio":"","flairs":["none"],"equippedFlair":"none","playMinutes":0,"lastHeartbeat":0,"modLevel":0}}`,
    ]);
  });
});

describe('OAuth error members', () => {
  it("error_description is the message in RFC 6749 5.2's characters: no quote, no backslash, ASCII only", () => {
    expect(errorDescription('A "quoted" \\ word, é and ✓')).toBe("A 'quoted' ' word, ? and ?");
    expect(errorDescription('Invalid client secret')).toBe('Invalid client secret');
  });

  it('an unsupported grant type is unsupported_grant_type beside the seed message; errors are not cached either', async () => {
    const res = await tokenRequest(t, { grant_type: 'password', code: 'c', client_id: client.clientId, client_secret: client.clientSecret });
    expect([res.status, res.headers.get('cache-control'), res.headers.get('pragma'), await res.json()]).toEqual([
      400,
      'no-store',
      'no-cache',
      {
        message: 'Unsupported grant_type: only authorization_code is supported',
        error: 'unsupported_grant_type',
        error_description: 'Unsupported grant_type: only authorization_code is supported',
      },
    ]);
    // Refused by the contract's validation, before the handler: still not cached.
    const invalid = await tokenRequest(t, { grant_type: 'authorization_code', client_id: client.clientId });
    expect([invalid.status, invalid.headers.get('cache-control'), await invalid.json()]).toEqual([
      400,
      'no-store',
      { message: 'Body field code is required', error: 'invalid_request', error_description: 'Body field code is required' },
    ]);
  });
});

describe('GET /oauth: what is refused before anyone signs in', () => {
  const visitor = (): Agent => new Agent(t);

  it('an OpenID Connect request without response_type goes back with invalid_request and the state', async () => {
    const res = await visitor().fetch(`/oauth?${authorizeQuery({ scope: 'openid', state: 's1', nonce: 'n' })}`);
    expect([res.status, res.headers.get('location')]).toEqual([
      302,
      `${client.redirectUri}?error=invalid_request&error_description=response_type+is+required%3A+send+response_type%3Dcode&state=s1&iss=${ISS}`,
    ]);
  });

  it("a plain OAuth request without response_type is the seed's: to sign in, then the consent page", async () => {
    const res = await visitor().fetch(`/oauth?${authorizeQuery({ scope: 'userinfo', state: 's1' })}`);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`/signin?return_to=${encodeURIComponent(`/oauth?${authorizeQuery({ scope: 'userinfo', state: 's1' })}`)}`);
  });

  it('a response_type other than code is unsupported_response_type', async () => {
    const res = await visitor().fetch(`/oauth?${authorizeQuery({ scope: 'openid', response_type: 'token', state: 's2' })}`);
    expect(res.headers.get('location')).toBe(
      `${client.redirectUri}?error=unsupported_response_type&error_description=Only+response_type%3Dcode+is+supported&state=s2&iss=${ISS}`,
    );
  });

  it('a request object is request_not_supported, by reference request_uri_not_supported; nothing in them is read', async () => {
    // The state and nonce inside the object are not read: no state comes back.
    const object = 'eyJhbGciOiJub25lIn0.eyJzdGF0ZSI6ImluLW9iamVjdCJ9.';
    const byValue = await visitor().fetch(`/oauth?${authorizeQuery({ scope: 'openid', response_type: 'code', request: object })}`);
    expect([byValue.status, byValue.headers.get('location')]).toEqual([
      302,
      `${client.redirectUri}?error=request_not_supported&error_description=Request+objects+%28the+request+parameter%29+are+not+supported&iss=${ISS}`,
    ]);
    const byReference = await visitor().fetch(`/oauth?${authorizeQuery({ scope: 'openid', response_type: 'code', request_uri: 'https://rp.example/r/1', state: 's3' })}`);
    expect(byReference.headers.get('location')).toBe(
      `${client.redirectUri}?error=request_uri_not_supported&error_description=Request+objects+by+reference+%28the+request_uri+parameter%29+are+not+supported&state=s3&iss=${ISS}`,
    );
  });

  it('an unregistered redirect_uri is the error page first, request object or not: never a redirect', async () => {
    const res = await visitor().fetch(
      `/oauth?${new URLSearchParams({ client_id: client.clientId, redirect_uri: `${client.redirectUri}_invalid`, scope: 'openid', response_type: 'code', request: 'x.y.' })}`,
      { headers: { Accept: 'text/html' } },
    );
    expect([res.status, res.headers.get('location')]).toEqual([400, null]);
    expect(await res.text()).toContain('The redirect_uri is not registered for this app');
  });
});

describe('POST /oauth without decision: the authorization request as a form', () => {
  const params = (extra: Record<string, string> = {}): Record<string, string> => ({
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    scope: 'openid profile',
    response_type: 'code',
    state: 'st',
    nonce: 'nn',
    ...extra,
  });

  it('signed out: to sign in, and back to the same request as GET /oauth', async () => {
    const res = await postAuthorization(new Agent(t), { ...params(), extra: 'ignored' });
    expect(res.status).toBe(302);
    const address = `/oauth?${new URLSearchParams({ client_id: client.clientId, redirect_uri: client.redirectUri, scope: 'openid profile', state: 'st', response_type: 'code', nonce: 'nn' })}`;
    expect(res.headers.get('location')).toBe(`/signin?return_to=${encodeURIComponent(address)}`);
  });

  it('signed in: the consent page GET /oauth shows, whose own form (with its CSRF token and decision) gets the code', async () => {
    const user = await makeUser(t);
    const agent = new Agent(t);
    await agent.signIn(user);
    const page = await postAuthorization(agent, params());
    expect(page.status).toBe(200);
    const fields = consentFields(await page.text());
    expect(fields).toEqual({ ...params(), _csrf: expect.stringMatching(/^[\w-]+$/) });
    const decided = await agent.form('/oauth', { ...fields, decision: 'authorize' });
    expect(decided.headers.get('location')).toMatch(new RegExp(`^${client.redirectUri}\\?code=[\\w-]{43}&state=st&iss=${ISS}$`));
    // Consent remembered: the next form POST comes back with a code at once.
    const again = await postAuthorization(agent, params({ state: 'st2' }));
    expect(again.headers.get('location')).toMatch(new RegExp(`^${client.redirectUri}\\?code=[\\w-]{43}&state=st2&iss=${ISS}$`));
  });

  it('the decision still needs the consent form\'s CSRF token: a forged decision is 403 and issues nothing', async () => {
    const user = await makeUser(t);
    const agent = new Agent(t);
    await agent.signIn(user);
    const forged = await postAuthorization(agent, { ...params(), decision: 'authorize' });
    expect(forged.status).toBe(403);
    expect(await forged.text()).toContain('Invalid CSRF token');
    const wrong = await postAuthorization(agent, { ...params(), decision: 'authorize', _csrf: 'forged' });
    expect(wrong.status).toBe(403);
    expect(await t.store.knex('auth_codes').where({ user_id: user.id })).toEqual([]);
  });

  it('refuses a request object sent in the form, before sign-in', async () => {
    const res = await postAuthorization(new Agent(t), { ...params(), request: 'x.y.' });
    expect(res.headers.get('location')).toBe(
      `${client.redirectUri}?error=request_not_supported&error_description=Request+objects+%28the+request+parameter%29+are+not+supported&state=st&iss=${ISS}`,
    );
  });
});

describe('UserInfo: the token in a form body (RFC 6750 2.2)', () => {
  async function openidToken(): Promise<{ token: string; userId: number }> {
    const user = await makeUser(t);
    const code = await makeCode(t, { userId: user.id, clientId: client.clientId, scope: 'openid' });
    const res = await tokenRequest(t, { grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: client.clientSecret });
    return { token: ((await res.json()) as { access_token: string }).access_token, userId: user.id };
  }
  const post = (body: string, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(`${t.baseUrl}/api/oauth/userinfo`, { method: 'POST', headers: { ...FORM, ...headers }, body });

  it('answers as with the header', async () => {
    const { token, userId } = await openidToken();
    const res = await post(new URLSearchParams({ access_token: token }).toString());
    expect([res.status, res.headers.get('cache-control'), await res.json()]).toEqual([200, 'no-store', { sub: String(userId) }]);
    const empty = await post('', { Authorization: `Bearer ${token}` });
    expect([empty.status, await empty.json()]).toEqual([200, { sub: String(userId) }]);
  });

  it('refuses the token in both places (400), an unknown one in the body (401 invalid_token), and neither (401)', async () => {
    const { token } = await openidToken();
    const both = await post(new URLSearchParams({ access_token: token }).toString(), { Authorization: `Bearer ${token}` });
    expect([both.status, await both.json()]).toEqual([400, { message: 'Send the access token either in the Authorization header or in the body, not both' }]);
    const unknown = await post('access_token=nope');
    expect([unknown.status, unknown.headers.get('www-authenticate'), await unknown.json()]).toEqual([
      401,
      'Bearer realm="whois", error="invalid_token", error_description="Invalid access token"',
      { message: 'Invalid access token' },
    ]);
    const neither = await post('');
    expect([neither.status, neither.headers.get('www-authenticate'), await neither.json()]).toEqual([401, 'Bearer realm="whois"', { message: 'Missing Authorization header' }]);
  });
});
