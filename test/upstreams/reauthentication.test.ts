/**
 * Re-authentication through an upstream identity provider (issue 50;
 * docs/account.md#re-authentication-through-an-upstream), over HTTP against a real provider
 * (node-oidc-provider, test/upstream-provider.ts) that keeps its own session between sign-ins, as
 * a person's browser keeps it. An app's `prompt=login` reaches the upstream as `prompt=login` and
 * `max_age=0`, its `max_age` as itself; the upstream's ID token must prove by `auth_time` a sign-in
 * that new, or the sign-in page says it did not and no sign-in is made: an upstream that ignores
 * them and signs the person in silently from its old session (or gives no `auth_time`) yields no
 * ID token here claiming a fresh `auth_time`. A plain OAuth 2.0 upstream, which cannot prove it, is
 * refused at the start. A sign-in nobody asked to be fresh takes its `auth_time` from the upstream.
 */
import type { EventEmitter } from 'node:events';
import { createLocalJWKSet, decodeJwt, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRecord } from '../../src/domain/users.js';
import { addUpstream } from '../../src/upstreams/upstreams.js';
import { Agent, makeClient, makeUser, startServer, tokenRequest, type TestClient, type TestServer } from '../helpers.js';
import { authorizeOverHttp } from '../oidc-flow.js';
import { showUpstreamLogsOnFailure, signInAtUpstreamOverHttp, startUpstreamProvider, type UpstreamProvider } from '../upstream-provider.js';

const SECRET = 'upstream-client-secret-for-reauthentication';
const RP = 'https://rp.example/cb';
const MINUTE = 60 * 1000;

let t: TestServer;
let op: UpstreamProvider;
let user: UserRecord;
let app: TestClient;
/** The `auth_time` of every ID token the upstream issued (seconds), in order; undefined where it had none. */
const upstreamAuthTimes: (number | undefined)[] = [];

/** One person's browser: its session here, and its cookies at the upstream (its session there). */
interface Browser {
  agent: Agent;
  jar: Map<string, string>;
}

const newBrowser = (): Browser => ({ agent: new Agent(t), jar: new Map() });

/** The sign-in page's reason, as shown. */
async function reasonOf(res: Response): Promise<string | undefined> {
  return /<p class="error" id="error-message">([^<]*)<\/p>/.exec(await res.text())?.[1];
}

/**
 * Presses "Sign in with <slug>" (with the sign-in page's return_to), signs in at the upstream if it
 * asks, and comes back: the callback's answer here, what the upstream was sent, and which of its
 * forms it showed (none: it signed the person in silently from its session).
 */
async function throughUpstream(b: Browser, slug: string, returnTo?: string): Promise<{ sent: URL; answer: Response; forms: string[] }> {
  const started = await b.agent.form(`/signin/upstream/${slug}`, returnTo === undefined ? {} : { return_to: returnTo });
  expect(started.status, await started.clone().text()).toBe(303);
  const sent = new URL(started.headers.get('location')!);
  const forms: string[] = [];
  const back = await signInAtUpstreamOverHttp(sent.href, 'ada', b.jar, forms);
  expect(back.origin + back.pathname).toBe(`${t.baseUrl}/signin/upstream/${slug}/callback`);
  return { sent, answer: await b.agent.fetch(back.pathname + back.search), forms };
}

/** An authorization request of the app, as the address the sign-in goes back to. */
function oauthPath(extra: Record<string, string>): string {
  return `/oauth?${new URLSearchParams({ response_type: 'code', client_id: app.clientId, redirect_uri: RP, scope: 'openid', nonce: 'n', state: 's', ...extra })}`;
}

/** Where the app's request sends this browser: the sign-in page again. */
function signInAgain(path: string): string {
  return `/signin?prompt=login&return_to=${encodeURIComponent(path)}`;
}

/** The app's ID token for this browser's answer to `path` (consenting when asked). */
async function idTokenFor(b: Browser, path: string): Promise<JWTPayload> {
  const { callbackUrl } = await authorizeOverHttp(b.agent, `${t.baseUrl}${path}`);
  const code = callbackUrl.searchParams.get('code');
  expect(code, callbackUrl.href).toMatch(/^[\w-]+$/);
  const res = await tokenRequest(t, { grant_type: 'authorization_code', code: code!, redirect_uri: RP, client_id: app.clientId, client_secret: app.clientSecret });
  expect(res.status).toBe(200);
  const { id_token: idToken } = (await res.json()) as { id_token: string };
  const keys = (await (await fetch(`${t.baseUrl}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
  return (await jwtVerify(idToken, createLocalJWKSet(keys), { currentDate: new Date(t.clock.now()) })).payload;
}

/** The auth_time this service reports for the upstream's last ID token: its own, never later than now (whole seconds). */
function upstreamsLastAuthTime(): number {
  const last = upstreamAuthTimes.at(-1);
  expect(last).toEqual(expect.any(Number));
  return Math.floor(Math.min(last! * 1000, t.clock.now()) / 1000);
}

describe('re-authentication through an upstream', () => {
  showUpstreamLogsOnFailure(() => op);

  beforeAll(async () => {
    t = await startServer({}, { limits: { upstreamIp: { points: 200, seconds: 600 } } });
    t.config.publicUrl = t.baseUrl;
    const callback = (slug: string) => [`${t.baseUrl}/signin/upstream/${slug}/callback`];
    op = await startUpstreamProvider({
      clients: [
        // Honours prompt=login and max_age.
        { client_id: 'honest', client_secret: SECRET, redirect_uris: callback('honest-op') },
        // Ignores them; its ID tokens always say when its session signed in (auth_time).
        { client_id: 'deaf', client_secret: SECRET, redirect_uris: callback('deaf-op'), require_auth_time: true },
        // Ignores them, and its ID tokens never carry auth_time.
        { client_id: 'mute', client_secret: SECRET, redirect_uris: callback('mute-op') },
      ],
      accounts: { ada: { sub: 'op-ada', email: 'ada@op.example', email_verified: true, amr: ['pwd'] } },
      ignoresReauthentication: ['deaf', 'mute'],
    });
    (op.provider as unknown as EventEmitter).on('grant.success', (ctx: { body?: { id_token?: string } }) => {
      const idToken = ctx.body?.id_token;
      const authTime = idToken === undefined ? undefined : decodeJwt(idToken).auth_time;
      if (idToken) upstreamAuthTimes.push(typeof authTime === 'number' ? authTime : undefined);
    });
    const registry = { store: t.store, now: t.clock.now, secrets: t.config.sessionSecrets };
    user = await makeUser(t, 'ada_here');
    for (const [name, clientId] of [['Honest OP', 'honest'], ['Deaf OP', 'deaf'], ['Mute OP', 'mute']] as const) {
      const added = await addUpstream(registry, { name, source: { issuer: op.issuer }, clientId, clientSecret: SECRET });
      await t.store.upstreamIdentities.linkUpstreamIdentity({ userId: user.id, upstreamSlug: added.slug, subject: 'op-ada', email: 'ada@op.example', createdAt: t.clock.now() });
    }
    // The same provider read as plain OAuth 2.0: no ID token, so no auth_time.
    await addUpstream(registry, {
      name: 'Plain OAuth',
      source: { authorizationEndpoint: `${op.issuer}/auth`, tokenEndpoint: `${op.issuer}/token`, userinfoEndpoint: `${op.issuer}/me`, claimMapping: { subject: 'sub', name: 'name', email: 'email', emailVerified: 'email_verified' } },
      scopes: ['openid', 'email'],
      clientId: 'plain',
      clientSecret: SECRET,
    });
    app = await makeClient(t, user.id, [RP]);
  });
  afterAll(async () => {
    await op?.close();
    await t?.close();
  });

  it('prompt=login reaches the upstream as prompt=login and max_age=0; it asks its own login again though its session lives, and the ID token says when', async () => {
    const b = newBrowser();
    const first = await throughUpstream(b, 'honest-op');
    expect([first.answer.status, first.answer.headers.get('location'), first.forms]).toEqual([303, '/account', ['login', 'consent']]);
    // Nothing asked of it: nothing passed on.
    expect([first.sent.searchParams.get('prompt'), first.sent.searchParams.get('max_age')]).toEqual([null, null]);

    // This service's clock 10 s ahead of the upstream's (within the skew allowed), so that the
    // upstream's auth_time differs from this service's now. The upstream's honest tests come first,
    // before the others move the clock minutes on.
    t.clock.advance(10 * 1000);
    const path = oauthPath({ prompt: 'login' });
    const asked = await b.agent.fetch(path);
    expect([asked.status, asked.headers.get('location')]).toEqual([302, signInAgain(path)]);
    const interactions: string[][] = [];
    const onInteraction = (_ctx: unknown, prompt: { name: string; reasons: string[] }) => interactions.push([prompt.name, ...prompt.reasons]);
    (op.provider as unknown as EventEmitter).on('interaction.started', onInteraction);
    const again = await throughUpstream(b, 'honest-op', path);
    (op.provider as unknown as EventEmitter).off('interaction.started', onInteraction);

    // What the upstream received, and what it made of it: a new login, its session notwithstanding.
    const received = op.authorizationRequests.at(-1)!;
    expect([received.get('client_id'), received.get('prompt'), received.get('max_age')]).toEqual(['honest', 'login', '0']);
    expect(interactions.map(([name]) => name)).toEqual(['login']);
    expect(interactions[0]).toContain('login_prompt');
    expect(again.forms).toEqual(['login']);
    expect([again.answer.status, again.answer.headers.get('location')]).toEqual([303, path]);

    // The app's code: the ID token's auth_time is the upstream's new sign-in.
    const claims = await idTokenFor(b, path);
    expect([claims.sub, claims.amr]).toEqual([String(user.id), ['fed', 'pwd']]);
    expect(claims.auth_time).toBe(upstreamsLastAuthTime());
  });

  it('max_age=0 reaches the upstream as max_age=0 (no prompt); a sign-in it proves within it goes on to the app with its auth_time', async () => {
    const b = newBrowser();
    await throughUpstream(b, 'honest-op');
    t.clock.advance(1000);
    const path = oauthPath({ max_age: '0' });
    expect((await b.agent.fetch(path)).headers.get('location')).toBe(signInAgain(path));
    const again = await throughUpstream(b, 'honest-op', path);
    const received = op.authorizationRequests.at(-1)!;
    expect([received.get('prompt'), received.get('max_age')]).toEqual([null, '0']);
    expect([again.answer.status, again.answer.headers.get('location')]).toEqual([303, path]);
    expect((await idTokenFor(b, path)).auth_time).toBe(upstreamsLastAuthTime());
  });

  it('an upstream that ignores prompt=login and signs the person in silently from its old session: no sign-in here, and no ID token with a fresh auth_time', async () => {
    const b = newBrowser();
    const first = await throughUpstream(b, 'deaf-op');
    expect([first.answer.status, first.answer.headers.get('location')]).toEqual([303, '/account']);
    // Five minutes later, an app asks for a new sign-in.
    t.clock.advance(5 * MINUTE);
    const path = oauthPath({ prompt: 'login', state: 'deaf' });
    expect((await b.agent.fetch(path)).headers.get('location')).toBe(signInAgain(path));
    const again = await throughUpstream(b, 'deaf-op', path);
    expect(again.forms).toEqual([]);
    expect([again.answer.status, await reasonOf(again.answer)]).toEqual([401, 'Deaf OP did not confirm a new sign-in: sign in with your password or passkey']);
    // It was asked (and dropped the request); it answered with its session's old auth_time.
    expect(op.authorizationRequests.at(-1)!.get('prompt')).toBe('login');
    expect(upstreamAuthTimes.at(-1)! * 1000).toBeLessThan(t.clock.now() - 4 * MINUTE);
    // The app's request finds the old sign-in as it was: sent to sign in again, no code.
    expect((await b.agent.fetch(path)).headers.get('location')).toBe(signInAgain(path));
    // With prompt=none, the answer is login_required, never a code.
    const silent = await b.agent.fetch(oauthPath({ prompt: 'none', max_age: '0' }));
    expect(new URL(silent.headers.get('location')!).searchParams.get('error')).toBe('login_required');
  });

  it('an upstream whose ID token gives no auth_time proves no fresh sign-in: refused for prompt=login and for max_age=0', async () => {
    const b = newBrowser();
    expect((await throughUpstream(b, 'mute-op')).answer.headers.get('location')).toBe('/account');
    expect(upstreamAuthTimes.at(-1)).toBeUndefined();
    t.clock.advance(1000);
    for (const extra of [{ prompt: 'login' }, { max_age: '0' }] as Record<string, string>[]) {
      const path = oauthPath(extra);
      expect((await b.agent.fetch(path)).headers.get('location')).toBe(signInAgain(path));
      const again = await throughUpstream(b, 'mute-op', path);
      expect([again.answer.status, await reasonOf(again.answer)]).toEqual([401, 'Mute OP did not confirm a new sign-in: sign in with your password or passkey']);
      expect(upstreamAuthTimes.at(-1)).toBeUndefined();
      expect((await b.agent.fetch(path)).headers.get('location')).toBe(signInAgain(path));
    }
  });

  it("max_age is passed on as itself: a silent sign-in older than it is refused; a sign-in nobody asked to be fresh keeps the upstream's auth_time, not now", async () => {
    t.clock.advance(MINUTE);
    const b = newBrowser();
    // A sign-in nobody asked to be fresh: the session's auth_time is the upstream's.
    await throughUpstream(b, 'deaf-op');
    const signedInThere = upstreamsLastAuthTime();
    expect(signedInThere * 1000).toBeLessThan(t.clock.now() - 30 * 1000);
    const noAsk = oauthPath({ state: 'plain' });
    expect((await idTokenFor(b, noAsk)).auth_time).toBe(signedInThere);

    // 20 minutes on, an app accepts a sign-in of the last 10: the upstream's is older, and it is
    // asked for max_age=600 (which it ignores).
    t.clock.advance(20 * MINUTE);
    const tenMinutes = oauthPath({ max_age: '600' });
    expect((await b.agent.fetch(tenMinutes)).headers.get('location')).toBe(signInAgain(tenMinutes));
    const again = await throughUpstream(b, 'deaf-op', tenMinutes);
    expect(op.authorizationRequests.at(-1)!.get('max_age')).toBe('600');
    expect([again.answer.status, await reasonOf(again.answer)]).toEqual([401, 'Deaf OP did not confirm a new sign-in: sign in with your password or passkey']);
    // An app that accepts an hour-old sign-in gets the upstream's auth_time, not the time it was used here.
    expect((await idTokenFor(b, oauthPath({ max_age: '3600', state: 'hour' }))).auth_time).toBe(signedInThere);
  });

  it('a plain OAuth 2.0 upstream (no ID token, no auth_time) is refused at the start when the app asked for a fresh sign-in; otherwise it starts', async () => {
    const agent = new Agent(t);
    for (const extra of [{ prompt: 'login' }, { max_age: '300' }] as Record<string, string>[]) {
      const refused = await agent.form('/signin/upstream/plain-oauth', { return_to: oauthPath(extra) });
      expect([refused.status, await reasonOf(refused)]).toEqual([401, 'Plain OAuth cannot confirm a new sign-in: sign in with your password or passkey']);
    }
    const started = await agent.form('/signin/upstream/plain-oauth', { return_to: oauthPath({}) });
    expect(started.status).toBe(303);
    const sent = new URL(started.headers.get('location')!);
    expect([sent.origin + sent.pathname, sent.searchParams.get('prompt'), sent.searchParams.get('max_age')]).toEqual([`${op.issuer}/auth`, null, null]);
  });
});
