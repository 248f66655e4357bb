/**
 * Whether an upstream's `amr` `mfa` counts here (issue 50; docs/account.md#trusting-an-upstreams-mfa),
 * over HTTP against a real provider (test/upstream-provider.ts) whose ID token asserts
 * `amr: ["pwd", "hwk", "mfa"]`. Off (the default), the account's authenticator app is still asked,
 * and the upstream's `mfa` is not passed on as if it were this service's: an account without a
 * second factor gets acr 1. On (`admin upstream update --trust-mfa`), the upstream's `mfa` spares
 * the step and counts (acr 2); off again, the step is asked again.
 */
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import { TOTP, URI } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRecord } from '../../src/domain/users.js';
import { addUpstream, setUpstreamTrustMfa } from '../../src/upstreams/upstreams.js';
import { Agent, makeClient, makeUser, startServer, TEST_PASSWORD, tokenRequest, type TestClient, type TestServer } from '../helpers.js';
import { authorizeOverHttp } from '../oidc-flow.js';
import { showUpstreamLogsOnFailure, signInAtUpstreamOverHttp, startUpstreamProvider, type UpstreamProvider } from '../upstream-provider.js';

const SECRET = 'upstream-client-secret-for-trust-mfa';
const RP = 'https://rp.example/cb';
const ASSERTED = ['pwd', 'hwk', 'mfa'];

let t: TestServer;
let op: UpstreamProvider;
let app: TestClient;
/** An account with an authenticator app, linked to the upstream's `with-app`. */
let withApp: UserRecord;
let totp: TOTP;
/** An account without a second factor, linked to the upstream's `no-app`. */
let noApp: UserRecord;

/** The app's authorization request, the address the sign-in goes back to. */
function oauthPath(state: string): string {
  return `/oauth?${new URLSearchParams({ response_type: 'code', client_id: app.clientId, redirect_uri: RP, scope: 'openid', nonce: 'n', state })}`;
}

/** Signs `login` in at the upstream on the way to the app; the callback's answer here. */
async function throughUpstream(agent: Agent, login: string, returnTo: string): Promise<Response> {
  const started = await agent.form('/signin/upstream/mfa-op', { return_to: returnTo });
  expect(started.status).toBe(303);
  const back = await signInAtUpstreamOverHttp(started.headers.get('location')!, login);
  return agent.fetch(back.pathname + back.search);
}

/** The ID token the app gets for this signed-in agent's request `path`. */
async function idTokenFor(agent: Agent, path: string): Promise<JWTPayload> {
  const { callbackUrl } = await authorizeOverHttp(agent, `${t.baseUrl}${path}`);
  const res = await tokenRequest(t, { grant_type: 'authorization_code', code: callbackUrl.searchParams.get('code')!, redirect_uri: RP, client_id: app.clientId, client_secret: app.clientSecret });
  expect(res.status).toBe(200);
  const { id_token: idToken } = (await res.json()) as { id_token: string };
  const keys = (await (await fetch(`${t.baseUrl}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
  return (await jwtVerify(idToken, createLocalJWKSet(keys), { currentDate: new Date(t.clock.now()) })).payload;
}

describe("an upstream's amr mfa", () => {
  showUpstreamLogsOnFailure(() => op);

  beforeAll(async () => {
    t = await startServer({}, { limits: { upstreamIp: { points: 200, seconds: 600 } } });
    t.config.publicUrl = t.baseUrl;
    op = await startUpstreamProvider({
      clients: [{ client_id: 'mfa-op', client_secret: SECRET, redirect_uris: [`${t.baseUrl}/signin/upstream/mfa-op/callback`] }],
      accounts: {
        'with-app': { sub: 'op-with-app', email: 'with-app@op.example', email_verified: true, amr: ASSERTED },
        'no-app': { sub: 'op-no-app', email: 'no-app@op.example', email_verified: true, amr: ASSERTED },
      },
    });
    await addUpstream({ store: t.store, now: t.clock.now, secrets: t.config.sessionSecrets }, { name: 'MFA OP', source: { issuer: op.issuer }, clientId: 'mfa-op', clientSecret: SECRET });
    withApp = await makeUser(t, 'with_app');
    noApp = await makeUser(t, 'no_app');
    const owner = new Agent(t);
    await owner.signIn(withApp);
    const { uri } = (await (await owner.json('POST', '/api/account/totp', { password: TEST_PASSWORD })).json()) as { uri: string };
    totp = URI.parse(uri) as TOTP;
    expect((await owner.json('POST', '/api/account/totp/confirm', { code: totp.generate({ timestamp: t.clock.now() }) })).status).toBe(200);
    for (const [user, subject] of [[withApp, 'op-with-app'], [noApp, 'op-no-app']] as const) {
      await t.store.upstreamIdentities.linkUpstreamIdentity({ userId: user.id, upstreamSlug: 'mfa-op', subject, email: null, createdAt: t.clock.now() });
    }
    app = await makeClient(t, withApp.id, [RP]);
  });
  afterAll(async () => {
    await op?.close();
    await t?.close();
  });

  it("is not trusted when the upstream is added: the account's authenticator app is still asked, and then amr has this service's otp and mfa (acr 2)", async () => {
    const agent = new Agent(t);
    const path = oauthPath('app-asked');
    const back = await throughUpstream(agent, 'with-app', path);
    expect([back.status, back.headers.get('location')]).toEqual([303, '/signin/otp']);
    // Not signed in before the step.
    expect(((await (await agent.fetch('/api/session')).json()) as { signed_in: boolean }).signed_in).toBe(false);
    t.clock.advance(30 * 1000);
    const step = await agent.form('/signin/otp', { otp: totp.generate({ timestamp: t.clock.now() }) });
    expect([step.status, step.headers.get('location')]).toEqual([303, path]);
    const claims = await idTokenFor(agent, path);
    expect([claims.sub, claims.amr, claims.acr]).toEqual([String(withApp.id), ['fed', 'pwd', 'hwk', 'otp', 'mfa'], '2']);
    expect((await t.store.upstreams.getUpstream('mfa-op'))?.trustMfa).toBe(false);
  });

  it("is not passed on while untrusted: an account without a second factor signs in with amr fed and the upstream's other values (acr 1)", async () => {
    const agent = new Agent(t);
    const path = oauthPath('no-app');
    const back = await throughUpstream(agent, 'no-app', path);
    expect([back.status, back.headers.get('location')]).toEqual([303, path]);
    const claims = await idTokenFor(agent, path);
    expect([claims.sub, claims.amr, claims.acr]).toEqual([String(noApp.id), ['fed', 'pwd', 'hwk'], '1']);
  });

  it('trusted (admin upstream update --trust-mfa) spares the authenticator-app step and counts (acr 2); untrusted again, the step is asked again', async () => {
    expect((await setUpstreamTrustMfa(t.store, 'MFA OP', true)).trustMfa).toBe(true);
    const agent = new Agent(t);
    const path = oauthPath('trusted');
    const back = await throughUpstream(agent, 'with-app', path);
    expect([back.status, back.headers.get('location')]).toEqual([303, path]);
    const claims = await idTokenFor(agent, path);
    expect([claims.sub, claims.amr, claims.acr]).toEqual([String(withApp.id), ['fed', 'pwd', 'hwk', 'mfa'], '2']);
    const other = new Agent(t);
    expect((await throughUpstream(other, 'no-app', path)).headers.get('location')).toBe(path);
    expect((await idTokenFor(other, path)).acr).toBe('2');

    expect((await setUpstreamTrustMfa(t.store, 'mfa-op', false)).trustMfa).toBe(false);
    const again = await throughUpstream(new Agent(t), 'with-app', path);
    expect(again.headers.get('location')).toBe('/signin/otp');
  });
});
