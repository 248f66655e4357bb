/**
 * Signing in through an upstream identity provider, over HTTP (issue 41; the flows a person clicks
 * through are test/browser/upstream-sign-in.test.ts): the buttons, the authorization request the
 * start sends the browser to (PKCE S256, state, nonce, the registered callback), and every way a
 * callback fails, on the sign-in page with its reason and status, never a 500: no sign-in started
 * in this browser, a state that does not match, a replayed callback, a cancel, an upstream that
 * cannot be reached or answers garbage; the callbacks' limit per address, in a parallel burst.
 */
import type { EventEmitter } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUpstream, setUpstreamEnabled } from '../../src/upstreams/upstreams.js';
import { decodeJwt } from 'jose';
import { Agent, makeClient, signedInAgent, startServer, TEST_DATABASE, TEST_PASSWORD, tokenRequest, type TestServer } from '../helpers.js';
import { authorizeOverHttp } from '../oidc-flow.js';
import { signInAtUpstreamOverHttp, startUpstreamProvider, type UpstreamProvider } from '../upstream-provider.js';

const CLIENT = { client_id: 'identity-service', client_secret: 'upstream-client-secret-for-tests' };

let t: TestServer;
let op: UpstreamProvider;
/** A provider whose discovery is right and whose token endpoint answers garbage. */
let garbage: http.Server;
let garbageIssuer: string;
let goneIssuer: string;

/** Every token response the upstream sent (its access and ID tokens), seen by the provider's own event. */
const upstreamAnswers: { access_token: string; id_token: string }[] = [];

/** Every row of every table of the test server's database, as one text. */
async function databaseText(): Promise<string> {
  const knex = t.store.knex;
  const tables =
    TEST_DATABASE === 'postgres'
      ? ((await knex.raw<{ rows: { table_name: string }[] }>('select table_name from information_schema.tables where table_schema = current_schema()')).rows.map((r) => r.table_name))
      : ((await knex.raw<{ name: string }[]>("select name from sqlite_master where type = 'table'")).map((r) => r.name));
  expect(tables).toContain('upstream_identities');
  const rows = await Promise.all(tables.map((table) => knex(table).select()));
  return JSON.stringify(rows);
}

function registry() {
  return { store: t.store, now: t.clock.now, secrets: t.config.sessionSecrets };
}

/** The sign-in page's reason, as shown. */
async function reasonOf(res: Response): Promise<string | undefined> {
  return /<p class="error" id="error-message">([^<]*)<\/p>/.exec(await res.text())?.[1];
}

/** Starts a sign-in through `slug` in `agent`'s session; the Location it answers. */
async function start(agent: Agent, slug: string, fields: Record<string, string> = {}): Promise<URL> {
  const res = await agent.form(`/signin/upstream/${slug}`, fields);
  expect(res.status, await res.clone().text()).toBe(303);
  return new URL(res.headers.get('location')!);
}

describe('signing in through an upstream, over HTTP', () => {
  beforeAll(async () => {
    t = await startServer({ TRUST_PROXY: '127.0.0.1' }, { limits: { upstreamIp: { points: 60, seconds: 600 } } });
    t.config.publicUrl = t.baseUrl;
    op = await startUpstreamProvider({
      clients: [{ ...CLIENT, redirect_uris: [`${t.baseUrl}/signin/upstream/test-op/callback`] }],
      accounts: {
        ada: { sub: 'op-ada', email: 'ada@op.example', email_verified: true, preferred_username: 'ada' },
        strong: { sub: 'op-strong', email: 'strong@op.example', email_verified: true, amr: ['pwd', 'hwk', 'mfa', 'x-custom'] },
      },
    });
    (op.provider as unknown as EventEmitter).on('grant.success', (ctx: { body?: unknown }) => {
      const body = ctx.body as { access_token?: string; id_token?: string } | undefined;
      if (body?.access_token && body.id_token) upstreamAnswers.push({ access_token: body.access_token, id_token: body.id_token });
    });
    await addUpstream(registry(), { name: 'Test OP', source: { issuer: op.issuer }, clientId: CLIENT.client_id, clientSecret: CLIENT.client_secret });
    await addUpstream(registry(), { name: 'Switched Off', source: { issuer: op.issuer }, clientId: CLIENT.client_id, clientSecret: CLIENT.client_secret });
    await setUpstreamEnabled(t.store, 'Switched Off', false);

    garbage = http.createServer((req, res) => {
      if (req.url === '/.well-known/openid-configuration') {
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ issuer: garbageIssuer, authorization_endpoint: `${garbageIssuer}/auth`, token_endpoint: `${garbageIssuer}/token`, jwks_uri: `${garbageIssuer}/jwks` }));
        return;
      }
      res.setHeader('Content-Type', 'text/html');
      res.end('<html>not a token</html>');
    });
    await new Promise<void>((resolve) => garbage.listen(0, '127.0.0.1', resolve));
    garbageIssuer = `http://127.0.0.1:${(garbage.address() as AddressInfo).port}`;
    await addUpstream(registry(), { name: 'Garbage', source: { issuer: garbageIssuer }, clientId: 'c', clientSecret: 's' });
    // Nothing listens there: the port of a server just closed.
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    goneIssuer = `http://127.0.0.1:${closedPort}`;
    await addUpstream(registry(), { name: 'Gone', source: { issuer: goneIssuer }, clientId: 'c', clientSecret: 's' });
  });
  afterAll(async () => {
    garbage?.close();
    await op?.close();
    await t?.close();
  });

  it('the sign-in and sign-up pages offer one button per enabled upstream, carrying return_to', async () => {
    const agent = new Agent(t);
    for (const page of ['/signin?return_to=%2Fgames', '/signup?return_to=%2Fgames']) {
      const res = await agent.fetch(page);
      const html = await res.text();
      const buttons = [...html.matchAll(/<form method="post" action="\/signin\/upstream\/([^"]+)"><input type="hidden" name="_csrf" value="[^"]+"><input type="hidden" name="return_to" value="\/games"><button type="submit" class="secondary" id="upstream-([^"]+)">([^<]+)<\/button><\/form>/g)];
      // Oldest first (added at one time here: by slug); the disabled one is not offered.
      expect(buttons.map((m) => [m[1], m[2], m[3]])).toEqual([
        ['garbage', 'garbage', 'Sign in with Garbage'],
        ['gone', 'gone', 'Sign in with Gone'],
        ['test-op', 'test-op', 'Sign in with Test OP'],
      ]);
      // The forms end at the upstreams (CSP form-action applies to the redirect too).
      expect(res.headers.get('content-security-policy')).toContain(`form-action 'self' ${garbageIssuer} ${goneIssuer} ${op.issuer};`);
    }
  });

  it('a start sends the browser to the upstream with PKCE (S256), a state, a nonce and the registered callback', async () => {
    const location = await start(new Agent(t), 'test-op');
    expect(location.origin + location.pathname).toBe(`${op.issuer}/auth`);
    const params = Object.fromEntries(location.searchParams);
    expect(Object.keys(params).sort()).toEqual(['client_id', 'code_challenge', 'code_challenge_method', 'nonce', 'redirect_uri', 'response_type', 'scope', 'state']);
    expect(params).toMatchObject({
      client_id: CLIENT.client_id,
      redirect_uri: `${t.baseUrl}/signin/upstream/test-op/callback`,
      response_type: 'code',
      scope: 'openid email profile',
      code_challenge_method: 'S256',
    });
    expect(params.code_challenge).toMatch(/^[\w-]{43}$/);
    expect(params.state).toMatch(/^[\w-]{43}$/);
    expect(params.nonce).toMatch(/^[\w-]{43}$/);
  });

  it('an unknown or disabled upstream is 404 on the sign-in page; no CSRF token is 403', async () => {
    const agent = new Agent(t);
    for (const slug of ['nobody', 'switched-off']) {
      const res = await agent.form(`/signin/upstream/${slug}`, {});
      expect(res.status).toBe(404);
      expect(await reasonOf(res)).toBe('No such way to sign in is offered here');
    }
    const forged = await agent.fetch('/signin/upstream/test-op', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: '' });
    expect(forged.status).toBe(403);
  });

  it('a callback without a sign-in started in this browser, with another state, or replayed, is 400 with the reason', async () => {
    const stranger = new Agent(t);
    const none = await stranger.fetch('/signin/upstream/test-op/callback?code=abc&state=xyz');
    expect(none.status).toBe(400);
    expect(await reasonOf(none)).toBe('This sign-in did not start in this browser, or took too long: start again');

    const agent = new Agent(t);
    const location = await start(agent, 'test-op');
    const wrong = await agent.fetch('/signin/upstream/test-op/callback?code=abc&state=not-the-state');
    expect([wrong.status, await reasonOf(wrong)]).toEqual([400, 'This sign-in did not start in this browser, or took too long: start again']);
    // The wrong callback took the sign-in: its right state no longer matches anything.
    const late = await agent.fetch(`/signin/upstream/test-op/callback?code=abc&state=${location.searchParams.get('state')}`);
    expect([late.status, await reasonOf(late)]).toEqual([400, 'This sign-in did not start in this browser, or took too long: start again']);

    // Another browser's callback with this browser's state: its session holds nothing.
    const second = await start(agent, 'test-op');
    const elsewhere = await stranger.fetch(`/signin/upstream/test-op/callback?code=abc&state=${second.searchParams.get('state')}`);
    expect(elsewhere.status).toBe(400);

    // Too late: 10 minutes on.
    const third = await start(agent, 'test-op');
    t.clock.advance(10 * 60 * 1000);
    const expired = await agent.fetch(`/signin/upstream/test-op/callback?code=abc&state=${third.searchParams.get('state')}`);
    expect([expired.status, await reasonOf(expired)]).toEqual([400, 'This sign-in did not start in this browser, or took too long: start again']);
  });

  it('a cancel or an error the upstream sends back is 400 with the reason', async () => {
    const agent = new Agent(t);
    const { searchParams } = await start(agent, 'test-op', { return_to: '/games' });
    const cancelled = await agent.fetch(`/signin/upstream/test-op/callback?error=access_denied&error_description=End-User+aborted&state=${searchParams.get('state')}`);
    expect(cancelled.status).toBe(400);
    const page = await cancelled.text();
    expect(/id="error-message">([^<]*)</.exec(page)?.[1]).toBe('You cancelled signing in with Test OP');
    expect(page).toContain('<input type="hidden" name="return_to" value="/games">');

    const again = await start(agent, 'test-op');
    const refused = await agent.fetch(`/signin/upstream/test-op/callback?error=temporarily_unavailable&state=${again.searchParams.get('state')}`);
    expect([refused.status, await reasonOf(refused)]).toEqual([400, 'Test OP refused the sign-in (temporarily_unavailable)']);
    // Its code is shown only when it is printable ASCII, and escaped.
    const third = await start(agent, 'test-op');
    const odd = await agent.fetch(`/signin/upstream/test-op/callback?error=%E2%98%83&state=${third.searchParams.get('state')}`);
    expect([odd.status, await reasonOf(odd)]).toEqual([400, 'Test OP refused the sign-in (error)']);
    const fourth = await start(agent, 'test-op');
    const markup = await agent.fetch(`/signin/upstream/test-op/callback?error=%3Cb%3E&state=${fourth.searchParams.get('state')}`);
    expect([markup.status, await reasonOf(markup)]).toEqual([400, 'Test OP refused the sign-in (&lt;b&gt;)']);
  });

  it('an upstream that cannot be reached is 503 at the start; one that answers garbage is 502 at the callback', async () => {
    const agent = new Agent(t);
    const gone = await agent.form('/signin/upstream/gone', {});
    expect([gone.status, await reasonOf(gone)]).toEqual([503, 'Gone cannot be reached now: try again later']);

    const location = await start(agent, 'garbage');
    const res = await agent.fetch(`/signin/upstream/garbage/callback?code=abc&state=${location.searchParams.get('state')}`);
    expect([res.status, await reasonOf(res)]).toEqual([502, 'Garbage answered something that cannot be used: try again, or sign in another way']);
  });

  it('callbacks count against the address: of a parallel burst of 70 from one address, 60 (the limit here) are answered, 10 are 429; another address still gets through', async () => {
    const agent = new Agent(t);
    const answers = await Promise.all(
      Array.from({ length: 70 }, () => agent.fetch('/signin/upstream/test-op/callback?code=abc&state=xyz', { headers: { 'X-Forwarded-For': '198.51.100.40' } })),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 400)).toHaveLength(60);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
    const other = await agent.fetch('/signin/upstream/test-op/callback?code=abc&state=xyz', { headers: { 'X-Forwarded-For': '198.51.100.41' } });
    expect(other.status).toBe(400);
  });

  it('linking from the account page (link=true) needs a signed-in person and their password: a stolen session alone cannot add a way in', async () => {
    const signedOut = await new Agent(t).form('/signin/upstream/test-op', { link: 'true', password: TEST_PASSWORD });
    expect([signedOut.status, await reasonOf(signedOut)]).toEqual([401, 'Sign in first']);
    const { agent } = await signedInAgent(t);
    const none = await agent.form('/signin/upstream/test-op', { link: 'true' });
    expect([none.status, await reasonOf(none)]).toEqual([400, 'Body field password is required']);
    const wrong = await agent.form('/signin/upstream/test-op', { link: 'true', password: 'not the password' });
    expect([wrong.status, await reasonOf(wrong)]).toEqual([403, 'The password is wrong']);
    const location = await start(agent, 'test-op', { link: 'true', password: TEST_PASSWORD });
    expect(location.origin + location.pathname).toBe(`${op.issuer}/auth`);
  });

  it('over HTTP: a new identity picks a name and signs in; the same identity signs that account in again; amr is fed and what the upstream asserted (registered values only, its mfa untrusted); the upstream tokens are kept nowhere', async () => {
    const agent = new Agent(t);
    const back = await signInAtUpstreamOverHttp((await start(agent, 'test-op', { return_to: '/games' })).href, 'strong');
    expect(back.origin + back.pathname).toBe(`${t.baseUrl}/signin/upstream/test-op/callback`);
    const pending = await agent.fetch(back.pathname + back.search);
    expect([pending.status, pending.headers.get('location')]).toEqual([303, '/signup/upstream']);
    const picked = await agent.form('/signup/upstream', { name: 'strong_one' });
    expect([picked.status, picked.headers.get('location')]).toEqual([303, '/games']);
    const session = (await (await agent.fetch('/api/session')).json()) as { user: { name: string } };
    expect(session.user.name).toBe('strong_one');
    // Nothing is pending any more.
    expect((await agent.fetch('/signup/upstream')).headers.get('location')).toBe('/signin');

    // Again, in another browser: straight in, as that account.
    const again = new Agent(t);
    const returned = await signInAtUpstreamOverHttp((await start(again, 'test-op')).href, 'strong');
    const signedIn = await again.fetch(returned.pathname + returned.search);
    expect([signedIn.status, signedIn.headers.get('location')]).toEqual([303, '/account']);
    const user = (await t.store.users.getUserByName('strong_one'))!;
    // The history names the upstream (the sign-up's sign-in and this one).
    const history = await t.store.signIns.listSignIns(user.id, 10);
    expect(history.map((h) => h.upstream)).toEqual(['Test OP', 'Test OP']);

    // The upstream's tokens (each token response it sent: access token, ID token) are kept nowhere.
    expect(upstreamAnswers.length).toBeGreaterThanOrEqual(2);
    const everything = await databaseText();
    for (const answer of upstreamAnswers) {
      for (const token of [answer.access_token, answer.id_token]) {
        expect(token).toMatch(/^[\w.-]{20,}$/);
        expect(everything).not.toContain(token);
      }
    }

    // An app's code in that session: the ID token says how. The upstream's mfa is not trusted (the
    // default: test/upstreams/trust-mfa.test.ts), so it is not passed on: one factor here.
    const app = await makeClient(t, user.id, ['https://rp.example/cb']);
    const { callbackUrl } = await authorizeOverHttp(again, `${t.baseUrl}/oauth?${new URLSearchParams({ response_type: 'code', client_id: app.clientId, redirect_uri: 'https://rp.example/cb', scope: 'openid', nonce: 'n-1' })}`);
    const exchanged = await tokenRequest(t, { grant_type: 'authorization_code', code: callbackUrl.searchParams.get('code')!, redirect_uri: 'https://rp.example/cb', client_id: app.clientId, client_secret: app.clientSecret });
    expect(exchanged.status).toBe(200);
    const claims = decodeJwt(((await exchanged.json()) as { id_token: string }).id_token);
    expect([claims.sub, claims.amr, claims.acr]).toEqual([String(user.id), ['fed', 'pwd', 'hwk'], '1']);
  });

  it("the GitHub preset takes the primary address GitHub's /user/emails says is verified (a server of GitHub's documented shape)", async () => {
    const emails: { email: string; primary: boolean; verified: boolean }[] = [];
    const github = http.createServer((req, res) => {
      const url = new URL(req.url!, 'http://github.test');
      res.setHeader('Content-Type', 'application/json');
      if (url.pathname === '/login/oauth/access_token' && req.method === 'POST') return void res.end(JSON.stringify({ access_token: 'gho_test', token_type: 'bearer', scope: 'read:user,user:email' }));
      if (req.headers.authorization !== 'Bearer gho_test') return void res.writeHead(401).end('{}');
      if (url.pathname === '/user') return void res.end(JSON.stringify({ id: 583231, login: 'octocat', email: null }));
      if (url.pathname === '/user/emails') return void res.end(JSON.stringify(emails));
      res.writeHead(404).end('{}');
    });
    await new Promise<void>((resolve) => github.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(github.address() as AddressInfo).port}`;
    try {
      await addUpstream(registry(), {
        name: 'GitHub',
        source: { authorizationEndpoint: `${base}/login/oauth/authorize`, tokenEndpoint: `${base}/login/oauth/access_token`, userinfoEndpoint: `${base}/user`, claimMapping: { subject: 'id', name: 'login', email: 'email', emailVerified: null } },
        scopes: ['read:user', 'user:email'],
        clientId: 'gh-client',
        clientSecret: 'gh-secret',
      });
      // As `--preset github` records it, with this server's endpoints.
      await t.store.knex('upstream_providers').where({ slug: 'github' }).update({ preset: 'github' });
      const callback = async (agent: Agent): Promise<Response> => {
        const { searchParams } = await start(agent, 'github');
        expect(searchParams.get('scope')).toBe('read:user user:email');
        return agent.fetch(`/signin/upstream/github/callback?code=github-code&state=${searchParams.get('state')}`);
      };
      // A primary address the service would refuse at sign-up is no address.
      emails.push({ email: 'public@octo.example', primary: false, verified: true }, { email: 'octo@localhost', primary: true, verified: true });
      const refused = await callback(new Agent(t));
      expect([refused.status, await reasonOf(refused)]).toEqual([403, 'GitHub did not give an email address: sign up with a password instead']);
      // No verified primary address: refused. Addresses are compared as the service stores them.
      emails[1] = { email: ' Octo@Octo.Example ', primary: true, verified: false };
      const unverified = await callback(new Agent(t));
      expect([unverified.status, await reasonOf(unverified)]).toEqual([403, 'GitHub does not say that octo@octo.example is verified: verify it there, or sign up with a password']);
      emails[1].verified = true;
      const agent = new Agent(t);
      const verified = await callback(agent);
      expect([verified.status, verified.headers.get('location')]).toEqual([303, '/signup/upstream']);
      const page = await (await agent.fetch('/signup/upstream')).text();
      expect(page).toContain('<strong id="upstream-email">octo@octo.example</strong>');
      expect(page).toContain('value="octocat"');
    } finally {
      github.close();
    }
  });
});
