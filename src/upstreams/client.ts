/**
 * This service as a client of an upstream identity provider, through openid-client: the
 * authorization request (PKCE S256, state, a nonce for OpenID Connect, and the app's prompt=login
 * or max_age passed on) and, back at the callback, the code exchange and who the person is: from
 * the ID token (signature against the upstream's JWKS, issuer, audience, nonce, all checked by
 * openid-client; `amr` and `auth_time` read) and its user info, or, from a plain OAuth 2.0
 * provider, its user-info endpoint read through the claim mapping. The upstream's tokens live only
 * in this module's locals: used once, never stored.
 */
import * as oidc from 'openid-client';
import { BadGateway, InvalidInput, Unavailable } from '../domain/errors.js';
import { CONTROL_CHARACTERS } from '../domain/text.js';
import type { UpstreamIdentityClaims, UpstreamSignInStart } from '../domain/upstream-sign-in.js';
import type { UpstreamRecord } from '../domain/upstreams.js';
import type { FreshSignIn } from '../oauth/authorization-policy.js';
import { emailAddressOf } from '../accounts/users.js';

/** How long one call to an upstream may take. */
const TIMEOUT_SECONDS = 10;
/** How long a discovery document (and the configuration made from it) is used before it is read again. */
const DISCOVERY_TTL_MS = 10 * 60 * 1000;
/** RFC 8176's registered Authentication Method Reference values: what an upstream's `amr` may add. */
const AMR_VALUES = new Set(['face', 'fpt', 'geo', 'hwk', 'iris', 'kba', 'mca', 'mfa', 'otp', 'pin', 'pop', 'pwd', 'rba', 'retina', 'sc', 'sms', 'swk', 'tel', 'user', 'vbm', 'wia']);
const SUBJECT_MAX = 255;
const NAME_MAX = 64;

/** One configuration per upstream, its client and its secret: a changed registration is discovered again. */
const configurations = new Map<string, { at: number; config: Promise<oidc.Configuration> }>();

/** An http issuer or endpoint is only ever on localhost (src/upstreams/upstreams.ts refuses others). */
function insecure(upstream: UpstreamRecord): boolean {
  return [upstream.issuer, upstream.authorizationEndpoint, upstream.tokenEndpoint, upstream.userinfoEndpoint].some((uri) => uri?.startsWith('http:'));
}

/** The upstream as openid-client's Configuration: discovered (OpenID Connect) or made from the endpoint triple. */
async function configuration(upstream: UpstreamRecord, clientSecret: string, now: number): Promise<oidc.Configuration> {
  const key = JSON.stringify([upstream.slug, upstream.clientId, upstream.clientSecretSealed, upstream.issuer, upstream.tokenEndpoint]);
  const cached = configurations.get(key);
  if (cached && now >= cached.at && now - cached.at < DISCOVERY_TTL_MS) return cached.config;
  const made = makeConfiguration(upstream, clientSecret);
  configurations.set(key, { at: now, config: made });
  // A failed discovery is tried again by the next sign-in.
  made.catch(() => configurations.delete(key));
  return made;
}

async function makeConfiguration(upstream: UpstreamRecord, clientSecret: string): Promise<oidc.Configuration> {
  if (upstream.kind === 'oidc' && upstream.issuer) {
    let config: oidc.Configuration;
    try {
      config = await oidc.discovery(new URL(upstream.issuer), upstream.clientId, undefined, undefined, {
        timeout: TIMEOUT_SECONDS,
        ...(insecure(upstream) ? { execute: [oidc.allowInsecureRequests] } : {}),
      });
    } catch (err) {
      throw upstreamError(upstream, err);
    }
    // OpenID Connect's default client authentication is client_secret_basic; a provider that
    // lists only client_secret_post gets that.
    const methods = config.serverMetadata().token_endpoint_auth_methods_supported;
    const auth = methods && !methods.includes('client_secret_basic') && methods.includes('client_secret_post') ? oidc.ClientSecretPost(clientSecret) : oidc.ClientSecretBasic(clientSecret);
    const withSecret = new oidc.Configuration(config.serverMetadata(), upstream.clientId, undefined, auth);
    withSecret.timeout = TIMEOUT_SECONDS;
    if (insecure(upstream)) oidc.allowInsecureRequests(withSecret);
    return withSecret;
  }
  const { authorizationEndpoint, tokenEndpoint } = upstream;
  if (!authorizationEndpoint || !tokenEndpoint) throw new Unavailable(`${upstream.name} is not set up completely: ask the operator`);
  // A plain OAuth 2.0 provider has no issuer identifier; this one names it for openid-client only.
  const config = new oidc.Configuration(
    { issuer: `urn:identity-profile-service:upstream:${upstream.slug}`, authorization_endpoint: authorizationEndpoint, token_endpoint: tokenEndpoint },
    upstream.clientId,
    undefined,
    // GitHub takes the client's secret only in the body; Discord and most others take both.
    oidc.ClientSecretPost(clientSecret),
  );
  config.timeout = TIMEOUT_SECONDS;
  if (insecure(upstream)) oidc.allowInsecureRequests(config);
  config[oidc.customFetch] = withoutIdToken(tokenEndpoint);
  return config;
}

/**
 * A plain OAuth 2.0 upstream's identity is its user info's: an ID token its token endpoint sends
 * anyway (a provider that speaks OpenID Connect too, asked for `openid`) is dropped unread, since
 * the record knows no issuer to check it against.
 */
function withoutIdToken(tokenEndpoint: string): oidc.CustomFetch {
  return async (url, options) => {
    // openid-client's options are fetch's. Under the DOM's types (test/browser/tsconfig.json
    // compiles src/ too) a Uint8Array body is not a BodyInit, whence the assertion.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
    const response = await fetch(url, options as RequestInit);
    if (url !== tokenEndpoint || !response.ok || !response.headers.get('content-type')?.includes('json')) return response;
    const body: unknown = await response.json().catch(() => undefined);
    if (typeof body !== 'object' || body === null || !('id_token' in body)) return Response.json(body, { status: response.status, headers: response.headers });
    const { id_token: _dropped, ...rest } = body as Record<string, unknown>;
    return Response.json(rest, { status: response.status, headers: response.headers });
  };
}

/**
 * What the app's authorization request asks of the sign-in, passed on to an OpenID Connect
 * upstream (docs/account.md#re-authentication-through-an-upstream): `prompt=login` is sent as
 * `prompt=login` with `max_age=0` (Core 3.1.2.1: the same request; either makes a provider sign the
 * person in again, and `max_age` makes `auth_time` required in its ID token), `max_age` as itself.
 */
function reauthenticationParameters(fresh: FreshSignIn | undefined): Record<string, string> {
  if (fresh === undefined) return {};
  return 'login' in fresh ? { prompt: 'login', max_age: '0' } : { max_age: String(fresh.maxAge) };
}

/** Where to send the browser, and what its callback must match (kept in its session). */
export async function authorizationRequest(
  upstream: UpstreamRecord,
  clientSecret: string,
  redirectUri: string,
  now: number,
  fresh?: FreshSignIn,
): Promise<{ url: string; checks: Pick<UpstreamSignInStart, 'state' | 'nonce' | 'codeVerifier'> }> {
  const config = await configuration(upstream, clientSecret, now);
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = upstream.kind === 'oidc' ? oidc.randomNonce() : null;
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: upstream.scopes.join(' '),
    state,
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    ...(nonce === null ? {} : { nonce }),
    ...reauthenticationParameters(fresh),
  });
  return { url: url.href, checks: { state, nonce, codeVerifier } };
}

/**
 * The token endpoint asked to redeem a code that cannot exist, with the client's id and secret as a
 * sign-in sends them (the operator's `admin upstream test`): the OAuth error it answers
 * (`invalid_grant` says the client was accepted, `invalid_client` that it was not), or the failure
 * the person would be told (Unavailable: it cannot be reached), with its detail.
 */
export async function probeTokenEndpoint(upstream: UpstreamRecord, clientSecret: string, redirectUri: string, now: number): Promise<{ status: number; error: string } | { answered: string }> {
  const config = await configuration(upstream, clientSecret, now);
  try {
    await oidc.genericGrantRequest(config, 'authorization_code', { code: oidc.randomState(), redirect_uri: redirectUri, code_verifier: oidc.randomPKCECodeVerifier() });
    return { answered: 'tokens for a code that does not exist' };
  } catch (err) {
    const answer = oauthErrorAnswer(err);
    if (answer && answer.status < 500) return answer;
    const failure = upstreamError(upstream, err);
    if (failure instanceof Unavailable) throw failure;
    return { answered: failureDetail(err) };
  }
}

/**
 * The code of the callback at `callbackUrl` exchanged (once, with the PKCE verifier), and who the
 * person is. The callback's state was matched with the session's by the caller and is checked
 * again here; an error the upstream sent back is the caller's to explain.
 */
export async function readIdentity(upstream: UpstreamRecord, clientSecret: string, start: UpstreamSignInStart, callbackUrl: URL, now: number): Promise<UpstreamIdentityClaims> {
  const config = await configuration(upstream, clientSecret, now);
  // RFC 9207's `iss` names the issuer, which a plain OAuth 2.0 upstream's record does not know: not checkable there.
  const answered = new URL(callbackUrl);
  if (upstream.kind !== 'oidc') answered.searchParams.delete('iss');
  try {
    const tokens = await oidc.authorizationCodeGrant(config, answered, {
      pkceCodeVerifier: start.codeVerifier,
      expectedState: start.state,
      ...(start.nonce === null ? {} : { expectedNonce: start.nonce, idTokenExpected: true }),
    });
    if (upstream.kind === 'oidc') {
      const idToken = tokens.claims();
      if (!idToken) throw new BadGateway(`${upstream.name} sent no ID token`);
      // The ID token may carry only `sub`: the rest is the user info's (its `sub` must be the same).
      const userInfo = idToken.email === undefined && config.serverMetadata().userinfo_endpoint ? await oidc.fetchUserInfo(config, tokens.access_token, idToken.sub) : {};
      const claims: Record<string, unknown> = { ...userInfo, ...idToken };
      return {
        subject: subjectOf(upstream, claims['sub']),
        ...emailOf(claims['email'], claims['email_verified']),
        name: nameOf(claims['preferred_username']) ?? nameOf(claims['name']),
        amr: Array.isArray(idToken.amr) ? [...new Set(idToken.amr.filter((v): v is string => typeof v === 'string' && AMR_VALUES.has(v)))] : [],
        // openid-client checked that it is a number when present; a provider's clock ahead of ours
        // does not make a sign-in later than now.
        ...(typeof idToken.auth_time === 'number' && Number.isFinite(idToken.auth_time) ? { authTime: Math.min(idToken.auth_time * 1000, now) } : {}),
      };
    }
    const mapping = upstream.claimMapping;
    if (!mapping || !upstream.userinfoEndpoint) throw new Unavailable(`${upstream.name} is not set up completely: ask the operator`);
    const response = await oidc.fetchProtectedResource(config, tokens.access_token, new URL(upstream.userinfoEndpoint), 'GET');
    if (!response.ok) throw new BadGateway(`${upstream.name} did not say who you are (its user info answered ${response.status})`);
    const info: unknown = await response.json().catch(() => undefined);
    if (typeof info !== 'object' || info === null || Array.isArray(info)) throw new BadGateway(`${upstream.name} did not say who you are (its user info is not a JSON object)`);
    const member = (name: string | null): unknown => (name === null ? undefined : (info as Record<string, unknown>)[name]);
    const subject = member(mapping.subject);
    const email = upstream.preset === 'github' ? await githubEmail(config, tokens.access_token, upstream.userinfoEndpoint) : emailOf(member(mapping.email), member(mapping.emailVerified));
    return {
      subject: subjectOf(upstream, typeof subject === 'number' && Number.isSafeInteger(subject) ? String(subject) : subject),
      ...email,
      name: nameOf(member(mapping.name)),
      amr: [],
    };
  } catch (err) {
    throw upstreamError(upstream, err);
  }
}

/**
 * GitHub's `/user` gives only the public address, and never says whether it is verified: its
 * `/user/emails` (scope `user:email`, beside `/user`) lists each with `primary` and `verified`.
 * The primary address counts, verified, when GitHub says it is; otherwise there is none.
 */
async function githubEmail(config: oidc.Configuration, accessToken: string, userinfoEndpoint: string): Promise<Pick<UpstreamIdentityClaims, 'email' | 'emailVerified'>> {
  const response = await oidc.fetchProtectedResource(config, accessToken, new URL('/user/emails', userinfoEndpoint), 'GET');
  const listed: unknown = response.ok ? await response.json().catch(() => undefined) : undefined;
  if (!Array.isArray(listed)) return { email: null, emailVerified: false };
  const primary = listed.find((e: unknown) => typeof e === 'object' && e !== null && (e as { primary?: unknown }).primary === true) as { email?: unknown; verified?: unknown } | undefined;
  return primary ? emailOf(primary.email, primary.verified) : { email: null, emailVerified: false };
}

function subjectOf(upstream: UpstreamRecord, value: unknown): string {
  if (typeof value !== 'string' || value.length < 1 || value.length > SUBJECT_MAX) throw new BadGateway(`${upstream.name} did not say who you are (no usable subject)`);
  return value;
}

/**
 * The address as the service stores addresses (an upstream's that the service would refuse at
 * sign-up is no address), and whether the upstream says it is verified: only `true` (or the string
 * "true" some providers send) counts.
 */
function emailOf(email: unknown, verified: unknown): Pick<UpstreamIdentityClaims, 'email' | 'emailVerified'> {
  const address = typeof email === 'string' ? emailAddressOf(email) : undefined;
  return address === undefined ? { email: null, emailVerified: false } : { email: address, emailVerified: verified === true || verified === 'true' };
}

function nameOf(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim().slice(0, NAME_MAX) : null;
}

/**
 * What went wrong talking to the upstream, for the operator's log line (src/upstreams/sign-in.ts)
 * and the CLI's checks: the network error's code and message, the HTTP status and OAuth error of
 * an answer, or the library's message. Never the request (which carries the client secret), and
 * one line of at most 300 characters.
 */
export function failureDetail(err: unknown): string {
  const { name, message, cause } = err as { name?: unknown; message?: unknown; cause?: unknown };
  const causeOf = cause as { code?: unknown; message?: unknown; status?: unknown } | undefined;
  const answer = oauthErrorAnswer(err);
  let detail: string;
  if (name === 'TimeoutError' || name === 'AbortError') detail = `no answer within ${TIMEOUT_SECONDS} s`;
  else if (answer) detail = `answered ${answer.status} ${answer.error}${err instanceof oidc.ResponseBodyError && err.error_description ? `: ${err.error_description}` : ''}`;
  else if (err instanceof TypeError && typeof causeOf?.message === 'string') {
    detail = typeof causeOf.code === 'string' && !causeOf.message.includes(causeOf.code) ? `${causeOf.code} ${causeOf.message}` : causeOf.message;
  }
  else if (cause instanceof Response) detail = `${String(message)} (HTTP ${cause.status})`;
  else detail = typeof message === 'string' ? message : String(err);
  return detail.replace(CONTROL_CHARACTERS, ' ').slice(0, 300);
}

/** An OAuth error the upstream answered: in its body, or in a WWW-Authenticate challenge (a 401 to the client's credentials). */
function oauthErrorAnswer(err: unknown): { status: number; error: string } | undefined {
  if (err instanceof oidc.ResponseBodyError) return { status: err.status, error: err.error };
  if (err instanceof oidc.WWWAuthenticateChallengeError) return { status: err.status, error: err.cause[0]?.parameters.error ?? err.cause[0]?.scheme ?? 'challenge' };
  return undefined;
}

/** A domain error for the person, carrying what went wrong (failureDetail) for the operator's log. */
function withDetail<E extends object>(error: E, err: unknown): E & { detail: string } {
  return Object.assign(error, { detail: failureDetail(err) });
}

/** What went wrong talking to the upstream, as the person is told: its answers are never shown. */
function upstreamError(upstream: UpstreamRecord, err: unknown): Error {
  if (err instanceof BadGateway || err instanceof Unavailable || err instanceof InvalidInput) return err;
  if (err instanceof oidc.AuthorizationResponseError) return new InvalidInput(`${upstream.name} refused the sign-in (${err.error})`);
  const name = (err as { name?: unknown }).name;
  const cause = (err as { cause?: { code?: unknown } }).cause;
  // fetch's network failures (refused, reset, unknown host) and openid-client's timeout.
  if ((err instanceof TypeError && (err.message === 'fetch failed' || cause?.code !== undefined)) || name === 'TimeoutError' || name === 'AbortError') {
    return withDetail(new Unavailable(`${upstream.name} cannot be reached now: try again later`), err);
  }
  if (err instanceof oidc.ResponseBodyError && err.status >= 500) return withDetail(new Unavailable(`${upstream.name} cannot sign you in now: try again later`), err);
  return withDetail(new BadGateway(`${upstream.name} answered something that cannot be used: try again, or sign in another way`), err);
}
