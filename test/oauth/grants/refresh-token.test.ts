/**
 * POST /api/oauth/token with grant_type=refresh_token (docs/oauth.md#refresh-tokens): the codes
 * that start a family, rotation, expiry, reuse detection and everything that ends a family, over
 * HTTP against the real app, with a real in-process SMTP server for the owner's notice.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SECURITY_EVENTS } from '../../../src/domain/security-events.js';
import { MailServer } from '../../mail-server.js';
import { authorizeOverHttp, registerApp, serverSeconds, type RegisteredApp } from '../../oidc-flow.js';
import { oauthErrorBody, signedInAgent, startServer, TEST_PASSWORD, tokenRequest, type Agent, type TestServer } from '../../helpers.js';
import type { UserRecord } from '../../../src/domain/users.js';

const IDLE_SECONDS = 3600;
const ABSOLUTE_SECONDS = 3 * 3600;
const CALLBACK = 'https://client.example/callback';
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const BOTH_GRANTS = ['authorization_code', 'refresh_token'];

const MSG = {
  unsupported: 'Unsupported grant_type: only authorization_code is supported',
  refreshRequired: 'Body field refresh_token is required',
  unauthorized: 'This app may not use refresh tokens: its grant_types lack refresh_token',
  invalid: 'Invalid refresh token',
  revoked: 'Refresh token has been revoked',
  expired: 'Refresh token has expired',
  reused: 'Refresh token has already been used; every token of this sign-in is revoked',
  usedCode: 'Authorization code has already been used; tokens issued from it are revoked',
  accessRevoked: 'Access token has been revoked',
  accessExpired: 'Access token has expired',
} as const;

let t: TestServer;
let smtp: MailServer;
const lines: string[] = [];
beforeAll(async () => {
  smtp = await new MailServer().start();
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
  t = await startServer(
    { SMTP_URL: smtp.url, REFRESH_TOKEN_IDLE_SECONDS: String(IDLE_SECONDS), REFRESH_TOKEN_ABSOLUTE_SECONDS: String(ABSOLUTE_SECONDS) },
    { logger, limits: { signInIp: { points: 1000, seconds: 600 } } },
  );
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});
beforeEach(() => {
  lines.length = 0;
  smtp.clear();
});

/** The audit lines of `event` written since the test began. */
function auditLines(event: string): Record<string, unknown>[] {
  return lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.audit === true && l.event === event);
}

interface TokenBody {
  access_token: string;
  token_type: 'Bearer';
  expires_in: 600;
  refresh_token?: string;
  id_token?: string;
}

interface SignIn {
  agent: Agent;
  user: UserRecord;
  app: RegisteredApp;
  /** What the code exchange answered. */
  first: TokenBody;
  /** The code (to replay it). */
  code: string;
  /** The exchange's parameters (client credentials included). */
  exchange: Record<string, string>;
  /** The scopes the consent page listed. */
  consented: string[];
}

/** Client authentication for `app`: the secret in the body, or client_id alone for a public app. */
function credentials(app: RegisteredApp): Record<string, string> {
  return app.client_secret === undefined ? { client_id: app.client_id } : { client_id: app.client_id, client_secret: app.client_secret };
}

/**
 * A new person signs in, registers an app with `grantTypes` and goes through the traditional flow
 * with `scope` (PKCE for a public app); the code is exchanged at the token endpoint.
 */
async function signIn(options: { scope?: string; grantTypes?: string[]; public?: boolean; nonce?: string } = {}): Promise<SignIn> {
  const { agent, user } = await signedInAgent(t);
  const app = await registerApp(agent, {
    name: 'Offline App',
    redirect_uris: [CALLBACK],
    grant_types: options.grantTypes ?? BOTH_GRANTS,
    ...(options.public ? { public: true } : {}),
  });
  return authorize(agent, user, app, options);
}

async function authorize(agent: Agent, user: UserRecord, app: RegisteredApp, options: { scope?: string; nonce?: string } = {}): Promise<SignIn> {
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL(`${t.baseUrl}/oauth`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: app.client_id,
    redirect_uri: CALLBACK,
    scope: options.scope ?? 'openid userinfo offline_access',
    state: 'st',
    ...(options.nonce === undefined ? {} : { nonce: options.nonce }),
    ...(app.public ? { code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256' } : {}),
  }).toString();
  const { callbackUrl, scopes } = await authorizeOverHttp(agent, url);
  const code = callbackUrl.searchParams.get('code');
  expect(code, callbackUrl.toString()).toMatch(TOKEN);
  const exchange = {
    grant_type: 'authorization_code',
    code: code!,
    redirect_uri: CALLBACK,
    ...credentials(app),
    ...(app.public ? { code_verifier: verifier } : {}),
  };
  const res = await tokenRequest(t, exchange);
  const first = (await res.json()) as TokenBody;
  expect(res.status, JSON.stringify(first)).toBe(200);
  return { agent, user, app, first, code: code!, exchange, consented: scopes };
}

function refresh(app: RegisteredApp, refreshToken: string | undefined, extra: Record<string, string> = {}): Promise<Response> {
  return tokenRequest(t, { grant_type: 'refresh_token', ...(refreshToken === undefined ? {} : { refresh_token: refreshToken }), ...credentials(app), ...extra });
}

/** A 200 token answer, uncacheable, with exactly the fields named (always access_token, token_type, expires_in). */
async function expectTokens(res: Response, fields: { refresh: boolean; idToken: boolean }): Promise<TokenBody> {
  const body = (await res.json()) as TokenBody;
  expect({ status: res.status, cacheControl: res.headers.get('cache-control'), pragma: res.headers.get('pragma'), body }).toEqual({
    status: 200,
    cacheControl: 'no-store',
    pragma: 'no-cache',
    body: {
      access_token: expect.stringMatching(TOKEN),
      token_type: 'Bearer',
      expires_in: 600,
      ...(fields.refresh ? { refresh_token: expect.stringMatching(TOKEN) } : {}),
      ...(fields.idToken ? { id_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/) } : {}),
    },
  });
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return body;
}

/** A token endpoint error: status, no-store, and the seed's `message` with RFC 6749 5.2's `error`. */
async function expectOAuthError(res: Response, status: number, error: string, message: string): Promise<void> {
  const body: unknown = await res.json();
  // RFC 6749 5.2's error_description has no `"`: the message's quotes become `'` there.
  const description = message.replaceAll('"', "'");
  expect({ status: res.status, cacheControl: res.headers.get('cache-control'), body }).toEqual({ status, cacheControl: 'no-store', body: oauthErrorBody(error, message, description) });
}

async function refreshed(app: RegisteredApp, refreshToken: string | undefined, extra: Record<string, string> = {}): Promise<TokenBody> {
  return expectTokens(await refresh(app, refreshToken, extra), { refresh: true, idToken: (extra.scope ?? 'openid').split(' ').includes('openid') });
}

async function whois(token: string): Promise<[number, unknown]> {
  const res = await fetch(`${t.baseUrl}/api/oauth/whois`, { headers: { Authorization: `Bearer ${token}` } });
  return [res.status, await res.json()];
}

function whoisOf(user: UserRecord): [number, unknown] {
  return [200, { id: user.id, name: user.name }];
}

function tokenEndpointPost(path: string, params: Record<string, string>): Promise<Response> {
  return fetch(`${t.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params).toString(),
  });
}

async function introspect(app: RegisteredApp, token: string): Promise<[number, string | null, unknown]> {
  const res = await tokenEndpointPost('/api/oauth/introspect', { token, ...credentials(app) });
  return [res.status, res.headers.get('cache-control'), await res.json()];
}

async function idTokenClaims(idToken: string, audience: string): Promise<JWTPayload> {
  const jwks = (await (await fetch(`${t.baseUrl}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
  const { payload } = await jwtVerify(idToken, createLocalJWKSet(jwks), {
    issuer: t.config.publicUrl,
    audience,
    algorithms: ['RS256'],
    currentDate: new Date(t.clock.now()),
  });
  return payload;
}

describe('codes that start a family', () => {
  it('answers a refresh_token (43 base64url characters) for `openid offline_access` of an app with the refresh grant', async () => {
    const s = await signIn({ scope: 'openid offline_access' });
    expect(s.consented).toEqual(['openid', 'offline_access']);
    expect(s.first).toEqual({
      access_token: expect.stringMatching(TOKEN),
      token_type: 'Bearer',
      expires_in: 600,
      refresh_token: expect.stringMatching(TOKEN),
      id_token: expect.any(String),
    });
    expect(s.first.refresh_token).not.toBe(s.first.access_token);
  });

  it('answers the seed three fields (or four with openid) without offline_access', async () => {
    const plain = await signIn({ scope: 'userinfo' });
    expect(plain.first).toEqual({ access_token: expect.stringMatching(TOKEN), token_type: 'Bearer', expires_in: 600 });
    const openid = await signIn({ scope: 'openid' });
    expect(openid.first).toEqual({ access_token: expect.stringMatching(TOKEN), token_type: 'Bearer', expires_in: 600, id_token: expect.any(String) });
  });

  it('drops offline_access silently at /oauth for an app without the refresh grant: no refresh_token', async () => {
    const s = await signIn({ grantTypes: ['authorization_code'], scope: 'openid offline_access' });
    expect(s.consented).toEqual(['openid']);
    expect(s.first).toEqual({ access_token: expect.stringMatching(TOKEN), token_type: 'Bearer', expires_in: 600, id_token: expect.any(String) });
    const userinfo = await signIn({ grantTypes: ['authorization_code'], scope: 'userinfo offline_access' });
    expect(userinfo.consented).toEqual(['userinfo']);
    expect(userinfo.first).toEqual({ access_token: expect.stringMatching(TOKEN), token_type: 'Bearer', expires_in: 600 });
  });

  it('revokes the refresh family too when the code is replayed', async () => {
    const s = await signIn();
    await expectOAuthError(await tokenRequest(t, s.exchange), 400, 'invalid_grant', MSG.usedCode);
    await expectOAuthError(await refresh(s.app, s.first.refresh_token), 400, 'invalid_grant', MSG.revoked);
    expect(await whois(s.first.access_token)).toEqual([401, { message: MSG.accessRevoked }]);
  });
});

describe('the refresh grant', () => {
  it('answers new access, refresh and ID tokens; the old access token lives until it expires; whois takes the new one', async () => {
    const s = await signIn();
    const next = await refreshed(s.app, s.first.refresh_token);
    expect(new Set([next.access_token, next.refresh_token, s.first.access_token, s.first.refresh_token]).size).toBe(4);
    expect(await whois(next.access_token)).toEqual(whoisOf(s.user));
    expect(await whois(s.first.access_token)).toEqual(whoisOf(s.user));
    t.clock.advance(600_000);
    expect(await whois(s.first.access_token)).toEqual([401, { message: MSG.accessExpired }]);
    // The refresh token outlives its access token.
    const later = await refreshed(s.app, next.refresh_token);
    expect(await whois(later.access_token)).toEqual(whoisOf(s.user));
  });

  it('signs an ID token for the same sign-in: the same iss, sub, aud, auth_time and amr, a new iat, no nonce', async () => {
    const s = await signIn({ nonce: 'n-0S6_WzA2Mj' });
    const first = await idTokenClaims(s.first.id_token!, s.app.client_id);
    expect(first.nonce).toBe('n-0S6_WzA2Mj');
    t.clock.advance(90_000);
    const next = await refreshed(s.app, s.first.refresh_token);
    const second = await idTokenClaims(next.id_token!, s.app.client_id);
    const iat = serverSeconds(t);
    expect(iat).toBeGreaterThan(first.iat!);
    const { nonce: _nonce, ...sameSignIn } = first;
    expect(second).toEqual({ ...sameSignIn, iat, exp: iat + (first.exp! - first.iat!) });
    expect([second.iss, second.sub, second.aud, second.auth_time]).toEqual([first.iss, first.sub, first.aud, first.auth_time]);
  });

  it('narrows the access token with `scope`; the refresh token keeps every scope', async () => {
    const s = await signIn({ scope: 'openid userinfo email offline_access' });
    const narrow = await refreshed(s.app, s.first.refresh_token, { scope: 'openid' });
    expect(await introspect(s.app, narrow.access_token)).toEqual([
      200,
      'no-store',
      {
        active: true,
        scope: 'openid',
        client_id: s.app.client_id,
        token_type: 'Bearer',
        exp: serverSeconds(t) + 600,
        iat: serverSeconds(t),
        sub: String(s.user.id),
        username: s.user.name,
      },
    ]);
    const narrowClaims = await idTokenClaims(narrow.id_token!, s.app.client_id);
    expect(narrowClaims.email).toBeUndefined();
    const full = await refreshed(s.app, narrow.refresh_token);
    expect(await introspect(s.app, full.access_token)).toEqual([200, 'no-store', expect.objectContaining({ active: true, scope: 'userinfo email openid offline_access' })]);
    expect((await idTokenClaims(full.id_token!, s.app.client_id)).email).toBe(s.user.email);
    // Without openid, no ID token.
    const noId = await expectTokens(await refresh(s.app, full.refresh_token, { scope: 'userinfo' }), { refresh: true, idToken: false });
    expect(await whois(noId.access_token)).toEqual(whoisOf(s.user));
  });

  it('refuses a scope beyond the grant with invalid_scope, and the token stays usable', async () => {
    const s = await signIn();
    await expectOAuthError(await refresh(s.app, s.first.refresh_token, { scope: 'openid email' }), 400, 'invalid_scope', 'Scope "email" was not granted to this sign-in');
    await refreshed(s.app, s.first.refresh_token);
  });

  it('answers unauthorized_client once the app loses the refresh grant (PATCH /api/apps/{id}); codes then give no refresh token', async () => {
    const s = await signIn();
    const patched = await s.agent.json('PATCH', `/api/apps/${s.app.client_id}`, { grant_types: ['authorization_code'] });
    expect(patched.status).toBe(200);
    expect(((await patched.json()) as { grant_types: string[] }).grant_types).toEqual(['authorization_code']);
    await expectOAuthError(await refresh(s.app, s.first.refresh_token), 400, 'unauthorized_client', MSG.unauthorized);
    const again = await authorize(s.agent, s.user, s.app);
    expect(again.first).toEqual({ access_token: expect.stringMatching(TOKEN), token_type: 'Bearer', expires_in: 600, id_token: expect.any(String) });
  });

  it('answers a missing refresh_token with its field, and client_credentials (no code) with unsupported_grant_type', async () => {
    const s = await signIn();
    await expectOAuthError(await refresh(s.app, undefined), 400, 'invalid_request', MSG.refreshRequired);
    const res = await tokenRequest(t, { grant_type: 'client_credentials', ...credentials(s.app) });
    expect({ status: res.status, body: await res.json() }).toEqual({
      status: 400,
      body: { message: MSG.unsupported, error: 'unsupported_grant_type', error_description: MSG.unsupported },
    });
  });
});

describe('invalid_grant', () => {
  it('for an unknown token', async () => {
    const s = await signIn();
    await expectOAuthError(await refresh(s.app, randomBytes(32).toString('base64url')), 400, 'invalid_grant', MSG.invalid);
  });

  it("for another app's token, which stays usable by its own app", async () => {
    const s = await signIn();
    const other = await signIn();
    await expectOAuthError(await refresh(other.app, s.first.refresh_token), 400, 'invalid_grant', MSG.invalid);
    await refreshed(s.app, s.first.refresh_token);
  });

  it('after REFRESH_TOKEN_IDLE_SECONDS unused', async () => {
    const s = await signIn();
    t.clock.advance(IDLE_SECONDS * 1000 - 1000);
    const next = await refreshed(s.app, s.first.refresh_token);
    t.clock.advance(IDLE_SECONDS * 1000);
    await expectOAuthError(await refresh(s.app, next.refresh_token), 400, 'invalid_grant', MSG.expired);
  });

  it('after REFRESH_TOKEN_ABSOLUTE_SECONDS, however often it was refreshed within the idle time', async () => {
    const s = await signIn();
    const familyEnd = t.clock.now() + ABSOLUTE_SECONDS * 1000;
    let current = s.first.refresh_token;
    // 2.5 h of refreshes every 50 minutes; the last token's idle expiry is the family's end.
    for (let i = 0; i < 3; i++) {
      t.clock.advance(50 * 60_000);
      current = (await refreshed(s.app, current)).refresh_token;
    }
    expect(await introspect(s.app, current!)).toEqual([200, 'no-store', expect.objectContaining({ active: true, exp: Math.floor(familyEnd / 1000) })]);
    t.clock.advance(30 * 60_000);
    await expectOAuthError(await refresh(s.app, current), 400, 'invalid_grant', MSG.expired);
    expect(await introspect(s.app, current!)).toEqual([200, 'no-store', { active: false }]);
  });
});

describe('reuse of a spent refresh token', () => {
  it('is refused; the whole family dies, the audit trail records it and the owner is told', async () => {
    const s = await signIn();
    const next = await refreshed(s.app, s.first.refresh_token);
    await expectOAuthError(await refresh(s.app, s.first.refresh_token), 400, 'invalid_grant', MSG.reused);
    await expectOAuthError(await refresh(s.app, next.refresh_token), 400, 'invalid_grant', MSG.revoked);
    expect(await whois(s.first.access_token)).toEqual([401, { message: MSG.accessRevoked }]);
    expect(await whois(next.access_token)).toEqual([401, { message: MSG.accessRevoked }]);
    expect(auditLines('refresh_token_reuse_detected')).toEqual([
      expect.objectContaining({ audit: true, event: 'refresh_token_reuse_detected', userId: s.user.id, clientId: s.app.client_id, revokedTokens: 4 }),
    ]);
    const mail = await smtp.next(s.user.email);
    expect(mail.mail.subject).toBe('Offline App was signed out of your account');
    for (const secret of [s.first.refresh_token!, next.refresh_token!, s.first.access_token, next.access_token]) {
      expect(mail.raw).not.toContain(secret);
      expect(lines.join('\n')).not.toContain(secret);
    }
  });

  it('a parallel burst of 8 refreshes of one token: exactly one 200, the rest 400, and the family is revoked', async () => {
    const s = await signIn();
    const answers = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const res = await refresh(s.app, s.first.refresh_token);
        return { status: res.status, body: (await res.json()) as TokenBody & { error?: string; message?: string } };
      }),
    );
    const won = answers.filter((a) => a.status === 200);
    const lost = answers.filter((a) => a.status !== 200);
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(7);
    for (const { status, body } of lost) {
      expect(status).toBe(400);
      expect([oauthErrorBody('invalid_grant', MSG.reused), oauthErrorBody('invalid_grant', MSG.revoked)]).toContainEqual(body);
    }
    expect(lost.some((a) => a.body.message === MSG.reused)).toBe(true);
    await expectOAuthError(await refresh(s.app, won[0]!.body.refresh_token), 400, 'invalid_grant', MSG.revoked);
    expect(await whois(won[0]!.body.access_token)).toEqual([401, { message: MSG.accessRevoked }]);
    expect(await whois(s.first.access_token)).toEqual([401, { message: MSG.accessRevoked }]);
  });
});

describe('a public client', () => {
  it('refreshes with client_id alone; another client id cannot use its token', async () => {
    const s = await signIn({ public: true });
    expect(s.first.refresh_token).toMatch(TOKEN);
    const other = await signIn({ public: true });
    await expectOAuthError(await refresh(other.app, s.first.refresh_token), 400, 'invalid_grant', MSG.invalid);
    const next = await refreshed(s.app, s.first.refresh_token);
    expect(await whois(next.access_token)).toEqual(whoisOf(s.user));
  });
});

describe('revocation and introspection (RFC 7009, RFC 7662)', () => {
  it('introspects a live refresh token with token_use, and a spent one as inactive', async () => {
    const s = await signIn({ scope: 'openid offline_access' });
    expect(await introspect(s.app, s.first.refresh_token!)).toEqual([
      200,
      'no-store',
      {
        active: true,
        scope: 'openid offline_access',
        client_id: s.app.client_id,
        token_use: 'refresh_token',
        exp: serverSeconds(t) + IDLE_SECONDS,
        iat: serverSeconds(t),
        sub: String(s.user.id),
        username: s.user.name,
      },
    ]);
    await refreshed(s.app, s.first.refresh_token);
    expect(await introspect(s.app, s.first.refresh_token!)).toEqual([200, 'no-store', { active: false }]);
  });

  it('revoking a refresh token revokes its family and its access tokens', async () => {
    const s = await signIn();
    const next = await refreshed(s.app, s.first.refresh_token);
    const res = await tokenEndpointPost('/api/oauth/revoke', { token: next.refresh_token!, ...credentials(s.app) });
    expect({ status: res.status, cacheControl: res.headers.get('cache-control'), body: await res.text() }).toEqual({ status: 200, cacheControl: 'no-store', body: '' });
    await expectOAuthError(await refresh(s.app, next.refresh_token), 400, 'invalid_grant', MSG.revoked);
    expect(await whois(s.first.access_token)).toEqual([401, { message: MSG.accessRevoked }]);
    expect(await whois(next.access_token)).toEqual([401, { message: MSG.accessRevoked }]);
    expect(await introspect(s.app, next.refresh_token!)).toEqual([200, 'no-store', { active: false }]);
  });
});

/** A sign-in of a new person to an app a different person registered (so ending the account leaves the app). */
async function signInToAnothersApp(): Promise<SignIn> {
  const developer = await signedInAgent(t);
  const app = await registerApp(developer.agent, { name: 'Offline App', redirect_uris: [CALLBACK], grant_types: BOTH_GRANTS });
  const { agent, user } = await signedInAgent(t);
  return authorize(agent, user, app);
}

describe('what else ends refresh tokens', () => {
  it('a password change', async () => {
    const s = await signIn();
    const res = await s.agent.json('POST', '/api/account/password', { current_password: TEST_PASSWORD, new_password: 'a new password 123' });
    expect(res.status).toBe(204);
    await expectOAuthError(await refresh(s.app, s.first.refresh_token), 400, 'invalid_grant', MSG.revoked);
    expect(await whois(s.first.access_token)).toEqual([401, { message: MSG.accessRevoked }]);
  });

  it("revoking the app's grant on the account page", async () => {
    const s = await signIn();
    const res = await s.agent.json('DELETE', `/api/account/grants/${s.app.client_id}`);
    expect(res.status).toBe(204);
    await expectOAuthError(await refresh(s.app, s.first.refresh_token), 400, 'invalid_grant', MSG.revoked);
    expect(await whois(s.first.access_token)).toEqual([401, { message: MSG.accessRevoked }]);
  });

  it('a suspension', async () => {
    const s = await signInToAnothersApp();
    const now = t.clock.now();
    const suspended = await t.store.moderation.suspendUser(
      s.user.id,
      { reason: 'Spam', since: now, until: null },
      {
        moderator: null,
        target: { id: s.user.id, name: s.user.name },
        action: 'suspend',
        reason: 'Spam',
        until: null,
        modLevel: null,
        reportId: null,
        outcome: null,
        game: null,
        createdAt: now,
      },
      SECURITY_EVENTS.suspended,
    );
    expect(suspended).toBe(true);
    await expectOAuthError(await refresh(s.app, s.first.refresh_token), 400, 'invalid_grant', MSG.revoked);
  });

  it('deleting the account', async () => {
    const s = await signInToAnothersApp();
    const res = await s.agent.json('POST', '/api/account/deletion', { password: TEST_PASSWORD, confirm: s.user.name });
    expect(res.status).toBeLessThan(300);
    await expectOAuthError(await refresh(s.app, s.first.refresh_token), 400, 'invalid_grant', MSG.invalid);
  });
});
