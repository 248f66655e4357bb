/**
 * The typed client of the Identity and Profile Service (npm package
 * `@identity-profile-service/client`), built on openapi-fetch and the types generated from the
 * contract, openapi.yaml (generated/api.ts). Works in Node 20+ and browsers (fetch and Web Crypto
 * only; ID tokens are verified with jose). Every failed call throws an IdentityServiceError
 * carrying the server's `{message}` and status.
 *
 *   const idp = createIdentityClient({ baseUrl: 'http://localhost:3000', clientId, clientSecret });
 *   const { access_token, id_token, refresh_token } = await idp.exchangeToken({ code });
 *   const claims = await idp.verifyIdToken(id_token!, { nonce });
 *   const me = await idp.whois(access_token);
 *   const profile = await idp.userInfo(me.id);
 *   const src = idp.pictureUrl(profile, 'medium');
 *   const renewed = await idp.refresh(refresh_token!); // with offline_access: keep renewed.refresh_token
 *
 * A device without a browser (RFC 8628): show the user code, then wait for the person.
 *
 *   const started = await idp.startDeviceAuthorization({ scope: ['openid', 'profile'] });
 *   console.log(`Open ${started.verification_uri} and enter ${started.user_code}`);
 *   const tokens = await idp.pollDeviceToken(started);
 */
import { createRemoteJWKSet, customFetch, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import createFetchClient, { type Client } from 'openapi-fetch';
import type { components, paths } from '../generated/api.js';

/** The token endpoint's answer; `refresh_token` when the grant has `offline_access` (and the app the refresh grant). */
export type TokenResponse = components['schemas']['TokenResponse'];
/** The answer to a refresh: always a new refresh token, which replaces the one sent (keep the newest). */
export type RefreshedTokenResponse = TokenResponse & { refresh_token: string };
/** The grants an app may use at the token endpoint (its `grant_types`). */
export type GrantType = components['schemas']['GrantType'];
/**
 * The answer to startDeviceAuthorization (RFC 8628 3.2): the `device_code` the device keeps and
 * polls with, the `user_code` (`XXXX-XXXX`) to show with `verification_uri`, the same page with the
 * code filled in (`verification_uri_complete`, for a link or a QR code), and `expires_in` and
 * `interval` in SECONDS.
 */
export type DeviceAuthorizationResponse = components['schemas']['DeviceAuthorizationResponse'];
export type Identity = components['schemas']['Identity'];
export type IntrospectionResponse = components['schemas']['IntrospectionResponse'];
export type AuthorizationServerMetadata = components['schemas']['AuthorizationServerMetadata'];
export type PublicUser = components['schemas']['PublicUser'];
export type UserInfoResponse = components['schemas']['UserInfoResponse'];
export type PictureSize = paths['/pfp/{size}/{file}']['get']['parameters']['path']['size'];
export type Scope = components['schemas']['Scope'];
export type OidcUserInfo = components['schemas']['OidcUserInfo'];
export type Jwks = components['schemas']['Jwks'];
/** The token response's `id_token`: present when the code was granted the `openid` scope. */
export type IdToken = NonNullable<TokenResponse['id_token']>;

/**
 * A verified ID token's claims (OpenID Connect Core 2; the contract's TokenResponse.id_token
 * lists them): the UserInfo claims of the granted scopes, plus who issued the token, for whom,
 * and when. Times are SECONDS since the epoch.
 */
export type IdTokenClaims = OidcUserInfo & {
  /** The service's issuer (its discovery document's `issuer`). */
  iss: string;
  /** Your client id. */
  aud: string;
  /** Your client id (the authorized party). */
  azp: string;
  exp: number;
  iat: number;
  /** When the person signed in. */
  auth_time: number;
  /** The authorization request's nonce, when it had one. */
  nonce?: string;
  /** How the person signed in (RFC 8176 values: `pwd`, `otp`, `mfa`, `hwk`, `swk`, `user`). */
  amr?: string[];
  /** The level of that sign-in: `"1"` one factor, `"2"` two (amr includes `mfa`). */
  acr?: '1' | '2';
};

export const PICTURE_SIZES: Readonly<Record<PictureSize, number>> = { large: 256, medium: 64, small: 16 };

/**
 * A non-2xx answer. `message` is the server's own `{message}` when it sent one; `oauthError` the
 * OAuth error code when the answer carries one (the body's `error`, or the `error="..."` of a
 * `WWW-Authenticate` Bearer challenge: `invalid_token`, `insufficient_scope`).
 */
export class IdentityServiceError extends Error {
  override name = 'IdentityServiceError';
  constructor(
    readonly status: number,
    message: string,
    /** The parsed error body, as sent. */
    readonly body: unknown,
    readonly oauthError?: string,
  ) {
    super(message);
  }
}

/** Why verifyIdToken refused a token. */
export type IdTokenErrorCode =
  /** Not a compact JWS, not a JWT, or not RS256. */
  | 'malformed'
  /** The signature does not verify with any of the service's keys (jwks_uri). */
  | 'signature'
  /** `exp` has passed. */
  | 'expired'
  /** `iss` is not the service's issuer. */
  | 'issuer'
  /** `aud` (or `azp`) is not your client id. */
  | 'audience'
  /** `nonce` is not the one given (or missing). */
  | 'nonce'
  /** `auth_time` is older than `maxAge` allows (or missing). */
  | 'auth_time'
  /** Another claim is missing or invalid. */
  | 'claims';

/** An ID token verifyIdToken refused; `code` says why, `cause` holds jose's error when there is one. */
export class IdTokenError extends Error {
  override name = 'IdTokenError';
  constructor(
    readonly code: IdTokenErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface VerifyIdTokenOptions {
  /** The nonce your authorization request sent: the token must carry exactly it. */
  nonce?: string;
  /** The `max_age` your authorization request sent (seconds): `auth_time` must be at most this old. */
  maxAge?: number;
}

export interface IdentityClientOptions {
  /** The service's address, e.g. `https://id.example.com` (no trailing slash needed). */
  baseUrl: string;
  /**
   * Your app's client id and secret, for the token exchange. Keep the secret on your backend. A
   * public app (a browser or native app, registered as public) has no secret: give the client id
   * alone, and redeem codes with their PKCE verifier.
   */
  clientId?: string;
  clientSecret?: string;
  /**
   * How the token exchange authenticates the client: `body` (client_id and client_secret as form
   * fields, as the interface shows) or `basic` (an HTTP Basic header, RFC 6749 2.3.1).
   */
  clientAuth?: 'body' | 'basic';
  /** Headers sent with every request (e.g. `Prefer: code=401` against the Prism mock). */
  headers?: Record<string, string>;
  /** A fetch implementation (defaults to the global one). */
  fetch?: typeof globalThis.fetch;
}

export interface ExchangeTokenParams {
  code: string;
  /** Required when the code was issued through the traditional flow for a redirect_uri. */
  redirectUri?: string;
  /** The PKCE verifier, required when the code was requested with a code_challenge. */
  codeVerifier?: string;
  /** Override the client's credentials or auth method for this call. */
  clientId?: string;
  clientSecret?: string;
  clientAuth?: 'body' | 'basic';
}

export interface PictureOwner {
  id: number;
  /** Leave out (or undefined) for a user without a picture. */
  pfpTimestamp?: number;
}

export interface LogoutUrlParams {
  /** An ID token the service issued to your app (expired ones too): names the app and the person. */
  idTokenHint?: string;
  /** Where the browser goes afterwards: one of the app's registered post_logout_redirect_uris. */
  postLogoutRedirectUri?: string;
  /** Repeated on the post-logout redirect. */
  state?: string;
  /** Your client id (names the app when there is no idTokenHint; must agree with it when there is). */
  clientId?: string;
}

function trimBase(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '');
}

/**
 * The address of a user's profile picture: `/pfp/<size>/<id>-<pfpTimestamp>.webp` when the user
 * has a pfpTimestamp, `/pfp/<size>/<id>.webp` (the generated default picture) when not.
 */
export function pictureUrl(baseUrl: string, user: PictureOwner, size: PictureSize): string {
  if (!(size in PICTURE_SIZES)) throw new RangeError(`size must be one of ${Object.keys(PICTURE_SIZES).join(', ')}`);
  if (!Number.isSafeInteger(user.id) || user.id < 1) throw new RangeError('id must be a positive integer');
  const file = user.pfpTimestamp === undefined ? `${user.id}.webp` : `${user.id}-${user.pfpTimestamp}.webp`;
  return `${trimBase(baseUrl)}/pfp/${size}/${file}`;
}

export interface AuthorizeUrlParams {
  clientId: string;
  /** Exactly one of the redirect URIs registered for the app. */
  redirectUri: string;
  /** E.g. `['userinfo']`, `['userinfo', 'email']`, `['openid', 'profile', 'email']` (or the space-separated string). */
  scope: Scope[] | string;
  /** An unguessable value; check it when the browser comes back (createState()). */
  state: string;
  /** The S256 challenge of a PKCE pair (createPkcePair()); required for public apps, recommended for all. */
  codeChallenge?: string;
  /** OpenID Connect: a value the ID token repeats (check it there). */
  nonce?: string;
  /** OpenID Connect: `login` asks for a fresh sign-in, `consent` for the consent page, `none` for no page. */
  prompt?: 'none' | 'login' | 'consent';
  /** OpenID Connect: the oldest sign-in, in seconds, the app accepts. */
  maxAge?: number;
}

/**
 * The traditional-flow address to send the user's browser to:
 * `GET /oauth?response_type=code&client_id=..&redirect_uri=..&scope=..&state=..[&code_challenge=..&code_challenge_method=S256]`.
 * The browser comes back to `redirect_uri?code=..&state=..`, or with `error=access_denied` /
 * `error=invalid_scope` (and the same state).
 */
export function authorizeUrl(baseUrl: string, params: AuthorizeUrlParams): string {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: params.clientId,
    redirect_uri: params.redirectUri,
    scope: Array.isArray(params.scope) ? params.scope.join(' ') : params.scope,
    state: params.state,
  });
  if (params.codeChallenge !== undefined) {
    query.set('code_challenge', params.codeChallenge);
    query.set('code_challenge_method', 'S256');
  }
  if (params.nonce !== undefined) query.set('nonce', params.nonce);
  if (params.prompt !== undefined) query.set('prompt', params.prompt);
  if (params.maxAge !== undefined) query.set('max_age', String(params.maxAge));
  return `${trimBase(baseUrl)}/oauth?${query.toString()}`;
}

/**
 * The OpenID Connect RP-initiated logout address (the discovery document's end_session_endpoint)
 * to send the browser to: `GET /oauth/logout?id_token_hint=..&post_logout_redirect_uri=..&state=..&client_id=..`.
 * The service signs the person out (asking first when the hint names someone else), then redirects
 * to post_logout_redirect_uri with state, or shows a "signed out" page.
 */
export function logoutUrl(baseUrl: string, params: LogoutUrlParams = {}): string {
  const query = new URLSearchParams();
  if (params.idTokenHint !== undefined) query.set('id_token_hint', params.idTokenHint);
  if (params.postLogoutRedirectUri !== undefined) query.set('post_logout_redirect_uri', params.postLogoutRedirectUri);
  if (params.state !== undefined) query.set('state', params.state);
  if (params.clientId !== undefined) query.set('client_id', params.clientId);
  const search = query.toString();
  return `${trimBase(baseUrl)}/oauth/logout${search === '' ? '' : `?${search}`}`;
}

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function randomToken(bytes = 32): string {
  return base64url(globalThis.crypto.getRandomValues(new Uint8Array(bytes)));
}

/** An unguessable `state` value for the traditional flow. */
export function createState(): string {
  return randomToken(16);
}

export interface PkcePair {
  /** Keep it (server side or session storage); send it to the token endpoint as code_verifier. */
  verifier: string;
  /** Send it in the authorize URL as code_challenge. */
  challenge: string;
  method: 'S256';
}

/** The S256 challenge of a verifier (RFC 7636 4.2): base64url(SHA-256(verifier)). */
export async function pkceChallenge(verifier: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

/** A fresh PKCE pair: a 43-character verifier (32 random bytes) and its S256 challenge. */
export async function createPkcePair(): Promise<PkcePair> {
  const verifier = randomToken(32);
  return { verifier, challenge: await pkceChallenge(verifier), method: 'S256' };
}

/** A text body as JSON when it is JSON (error bodies read with parseAs: 'text'). */
function parseJson(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

/** The OAuth error code of a failed answer: the body's `error`, or the WWW-Authenticate challenge's. */
function oauthErrorOf(response: Response, body: unknown): string | undefined {
  if (typeof body === 'object' && body !== null && typeof (body as { error?: unknown }).error === 'string') return (body as { error: string }).error;
  return /(?:^|[\s,])error="([^"]*)"/.exec(response.headers.get('WWW-Authenticate') ?? '')?.[1];
}

function failure(response: Response, body: unknown): IdentityServiceError {
  const message =
    typeof body === 'object' && body !== null && typeof (body as { message?: unknown }).message === 'string'
      ? (body as { message: string }).message
      : // Not the service's own error shape (a proxy, or the Prism mock's problem+json reports).
        typeof body === 'object' && body !== null && typeof (body as { detail?: unknown }).detail === 'string'
        ? (body as { detail: string }).detail
        : `HTTP ${response.status} ${response.statusText}`.trim();
  return new IdentityServiceError(response.status, message, body, oauthErrorOf(response, body));
}

/** jose's refusals as IdTokenErrors; anything else (the key set unreachable) as it is. */
function idTokenFailure(err: unknown): unknown {
  const cause = { cause: err };
  if (err instanceof joseErrors.JWTExpired) return new IdTokenError('expired', 'The ID token has expired', cause);
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    if (err.claim === 'iss') return new IdTokenError('issuer', 'The ID token\'s iss is not the service\'s issuer', cause);
    if (err.claim === 'aud') return new IdTokenError('audience', 'The ID token\'s aud is not this client', cause);
    return new IdTokenError('claims', `The ID token's ${err.claim} claim is invalid: ${err.reason}`, cause);
  }
  if (err instanceof joseErrors.JWSSignatureVerificationFailed || err instanceof joseErrors.JWKSNoMatchingKey) {
    return new IdTokenError('signature', 'The ID token\'s signature does not verify with the service\'s keys', cause);
  }
  if (err instanceof joseErrors.JWSInvalid || err instanceof joseErrors.JWTInvalid || err instanceof joseErrors.JOSEAlgNotAllowed || err instanceof joseErrors.JOSENotSupported) {
    return new IdTokenError('malformed', 'Not an RS256 ID token', cause);
  }
  return err;
}

/** RFC 6749 2.3.1: id and secret are form-encoded before they are joined and base64-encoded. */
function basicCredentials(clientId: string, clientSecret: string): string {
  const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
  const bytes = new TextEncoder().encode(`${enc(clientId)}:${enc(clientSecret)}`);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return `Basic ${btoa(binary)}`;
}

/** Per-call client credentials for revoke and introspect (defaults: the client's options). */
export interface ClientAuthOptions {
  clientId?: string;
  clientSecret?: string;
  clientAuth?: 'body' | 'basic';
}

export interface RefreshOptions extends ClientAuthOptions {
  /**
   * Fewer scopes for the new access token (each granted to the sign-in; `invalid_scope`
   * otherwise); left out, all of them. The new refresh token keeps every scope either way.
   */
  scope?: Scope[] | string;
}

export interface DeviceAuthorizationOptions extends ClientAuthOptions {
  /** E.g. `['openid', 'profile', 'offline_access']` (or the space-separated string), under the authorization endpoint's rules. */
  scope?: Scope[] | string;
}

export interface PollDeviceTokenOptions extends ClientAuthOptions {
  /** Stops the polling: the promise rejects with the signal's reason (an `AbortError` by default), at once, even mid-wait. */
  signal?: AbortSignal;
  /** Called after each answer that says to keep waiting (`authorization_pending`, `slow_down`), with the interval in seconds now in force. */
  onPending?: (info: { interval: number }) => void;
  /** How to wait `ms` milliseconds before a poll (default: setTimeout). Tests and schedulers inject their own. */
  sleep?: (ms: number) => Promise<void>;
}

/** The default wait: a timer, cleared when `signal` aborts (so an aborted poll keeps no process alive). */
function timer(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => clearTimeout(id);
    const id = setTimeout(() => {
      signal?.removeEventListener('abort', stop);
      resolve();
    }, ms);
    signal?.addEventListener('abort', stop, { once: true });
  });
}

/** The grant type of RFC 8628 3.4, as the device sends it to the token endpoint. */
const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** RFC 8628 3.5: seconds every `slow_down` adds to the interval. */
const SLOW_DOWN_SECONDS = 5;

/** The service's own answer for an expired device code (the contract's deviceExpired example). */
const DEVICE_CODE_EXPIRED = 'Device code has expired';

/** `promise`, or the signal's reason as soon as it aborts (`promise` is still settled quietly). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  return new Promise<T>((resolve, reject) => {
    // An AbortSignal's reason is an AbortError (a DOMException) unless the caller gave another.
    const onAbort = () => reject(signal.reason as Error);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    void promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export interface IdentityClient {
  /** The underlying openapi-fetch client, typed by the contract, for anything not wrapped here. */
  readonly http: Client<paths>;
  readonly baseUrl: string;
  /**
   * POST /api/oauth/token: exchange an authorization code for a 600-second Bearer token (and a
   * refresh token when the code was granted `offline_access`).
   */
  exchangeToken(params: ExchangeTokenParams): Promise<TokenResponse>;
  /**
   * POST /api/oauth/token with `grant_type=refresh_token` (RFC 6749 6), authenticated as
   * exchangeToken is (a public app: its client id alone): a new access token, a new refresh
   * token, and a new ID token with `openid`. The refresh token sent is spent: keep the new one.
   * Sending a spent one again rejects with `invalid_grant` and ends every token of that sign-in.
   */
  refresh(refreshToken: string, options?: RefreshOptions): Promise<RefreshedTokenResponse>;
  /**
   * POST /api/oauth/device_authorization (RFC 8628 3.1), authenticated as exchangeToken is (a
   * public app: its client id alone; the app's `grant_types` must include
   * `urn:ietf:params:oauth:grant-type:device_code`): starts a sign-in on a device without a
   * browser. Show the person `user_code` and `verification_uri` (or `verification_uri_complete`),
   * then call pollDeviceToken with the answer.
   */
  startDeviceAuthorization(options?: DeviceAuthorizationOptions): Promise<DeviceAuthorizationResponse>;
  /**
   * Polls POST /api/oauth/token with `grant_type=urn:ietf:params:oauth:grant-type:device_code`
   * (RFC 8628 3.4 and 3.5) until the person decides on the service's /device page: waits
   * `interval` seconds before each poll, keeps going on `authorization_pending`, adds 5 seconds to
   * the interval on `slow_down` and keeps going, and resolves with the tokens once the person
   * approves (as an exchange answers them: `refresh_token` with `offline_access`, `id_token` with
   * `openid`). Rejects with an IdentityServiceError on `access_denied` (the person denied),
   * `expired_token` and any other refusal; and, without asking again, with the service's
   * `expired_token` error once `expires_in` seconds have passed since the call (by the clock, or
   * by the waits when an injected `sleep` is faster than it).
   */
  pollDeviceToken(authorization: DeviceAuthorizationResponse, options?: PollDeviceTokenOptions): Promise<TokenResponse>;
  /** GET /api/oauth/whois: who the token belongs to (`email` only with the email scope). */
  whois(accessToken: string): Promise<Identity>;
  /**
   * POST /api/oauth/revoke (RFC 7009): ends one of this app's tokens, an access token or a refresh
   * token (with every token of its sign-in). Resolves also when the token was unknown, expired or
   * already revoked; rejects with 403 for another app's token.
   */
  revokeToken(token: string, options?: ClientAuthOptions): Promise<void>;
  /**
   * POST /api/oauth/introspect (RFC 7662): whether one of this app's tokens is live, and for whom.
   * `exp` and `iat` are SECONDS since the epoch; anything not live is `{active: false}`. A refresh
   * token has `token_use: 'refresh_token'` instead of `token_type`, and `exp` is its idle expiry.
   */
  introspectToken(token: string, options?: ClientAuthOptions): Promise<IntrospectionResponse>;
  /** GET /.well-known/oauth-authorization-server (RFC 8414): the service's endpoints and features. */
  metadata(): Promise<AuthorizationServerMetadata>;
  /** GET /.well-known/openid-configuration: the same document, where OpenID Connect looks for it. */
  openIdConfiguration(): Promise<AuthorizationServerMetadata>;
  /** GET /.well-known/jwks.json: the public keys ID tokens are signed with. */
  jwks(): Promise<Jwks>;
  /**
   * GET (or POST) /api/oauth/userinfo: the OpenID Connect claims of a token with the `openid`
   * scope (403 with oauthError `insufficient_scope` without it).
   */
  oidcUserInfo(accessToken: string, options?: { method?: 'GET' | 'POST' }): Promise<OidcUserInfo>;
  /**
   * Verifies an OpenID Connect ID token (Core 3.1.3.7): RS256, signed with one of the keys at the
   * service's jwks_uri, `iss` the issuer of its discovery document (both fetched once and
   * cached), `aud` (and `azp`) the client id, not expired, `nonce` when given, `auth_time` within
   * `maxAge` when given. Resolves with the claims; rejects with an IdTokenError (or an
   * IdentityServiceError when discovery fails).
   */
  verifyIdToken(idToken: string, options?: VerifyIdTokenOptions): Promise<IdTokenClaims>;
  /** The RP-initiated logout address (clientId defaults to the client's). */
  logoutUrl(params?: LogoutUrlParams): string;
  /** GET /api/users/info?id=N: a user's public profile, no authentication. */
  userInfo(id: number): Promise<PublicUser>;
  /** The picture address of a user (whois identity or public profile) at one of the three sizes. */
  pictureUrl(user: PictureOwner, size: PictureSize): string;
  /** GET a profile picture's WebP bytes. */
  fetchPicture(user: PictureOwner, size: PictureSize): Promise<Uint8Array>;
  /** The traditional-flow address to send a browser to. */
  authorizeUrl(params: Omit<AuthorizeUrlParams, 'clientId'> & { clientId?: string }): string;
}

export function createIdentityClient(options: IdentityClientOptions): IdentityClient {
  const baseUrl = trimBase(options.baseUrl);
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  const http = createFetchClient<paths>({ baseUrl, fetch: fetchImpl, headers: options.headers });

  /** The issuer and key set ID tokens are checked against, from discovery: fetched once, again after a failure. */
  let verification: Promise<{ issuer: string; keys: ReturnType<typeof createRemoteJWKSet> }> | undefined;
  function idTokenKeys() {
    verification ??= (async () => {
      const { data, error, response } = await http.GET('/.well-known/openid-configuration');
      if (error !== undefined || data === undefined) throw failure(response, error);
      const keys = createRemoteJWKSet(new URL(data.jwks_uri), { headers: options.headers, [customFetch]: (url, init) => fetchImpl(url, init) });
      return { issuer: data.issuer, keys };
    })();
    verification.catch(() => (verification = undefined));
    return verification;
  }

  /** The form and headers of a client-authenticated request (token, revoke, introspect). */
  function authenticated(operation: string, form: Record<string, string>, auth: ClientAuthOptions = {}) {
    const clientId = auth.clientId ?? options.clientId;
    const clientSecret = auth.clientSecret ?? options.clientSecret;
    if (!clientId) throw new TypeError(`${operation} needs clientId`);
    if (!clientSecret && operation === 'introspectToken') throw new TypeError('introspectToken needs clientId and clientSecret (a public app cannot introspect)');
    const method = auth.clientAuth ?? options.clientAuth ?? 'body';
    const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded' };
    // A public app (no secret) names itself with client_id alone.
    if (!clientSecret) Object.assign(form, { client_id: clientId });
    else if (method === 'basic') headers.Authorization = basicCredentials(clientId, clientSecret);
    else Object.assign(form, { client_id: clientId, client_secret: clientSecret });
    return { form, headers, bodySerializer: (body: unknown) => new URLSearchParams(body as Record<string, string>).toString() };
  }

  return {
    http,
    baseUrl,

    async revokeToken(token, auth) {
      const { form, headers, bodySerializer } = authenticated('revokeToken', { token, token_type_hint: 'access_token' }, auth);
      const { error, response } = await http.POST('/api/oauth/revoke', {
        body: form as components['schemas']['TokenReference'],
        bodySerializer,
        headers,
        parseAs: 'text',
      });
      if (!response.ok) throw failure(response, parseJson(error));
    },

    async introspectToken(token, auth) {
      const { form, headers, bodySerializer } = authenticated('introspectToken', { token }, auth);
      const { data, error, response } = await http.POST('/api/oauth/introspect', {
        body: form as components['schemas']['TokenReference'],
        bodySerializer,
        headers,
      });
      if (error !== undefined || data === undefined) throw failure(response, error);
      return data;
    },

    async metadata() {
      const { data, error, response } = await http.GET('/.well-known/oauth-authorization-server');
      if (error !== undefined || data === undefined) throw failure(response, error);
      return data;
    },

    async openIdConfiguration() {
      const { data, error, response } = await http.GET('/.well-known/openid-configuration');
      if (error !== undefined || data === undefined) throw failure(response, error);
      return data;
    },

    async jwks() {
      const { data, error, response } = await http.GET('/.well-known/jwks.json');
      if (error !== undefined || data === undefined) throw failure(response, error);
      return data;
    },

    async oidcUserInfo(accessToken, { method = 'GET' } = {}) {
      const init = { headers: { Authorization: `Bearer ${accessToken}` } };
      const { data, error, response } = method === 'POST' ? await http.POST('/api/oauth/userinfo', init) : await http.GET('/api/oauth/userinfo', init);
      if (error !== undefined || data === undefined) throw failure(response, error);
      return data;
    },

    async verifyIdToken(idToken, verify = {}) {
      const clientId = options.clientId;
      if (!clientId) throw new TypeError('verifyIdToken needs clientId (the audience)');
      const { issuer, keys } = await idTokenKeys();
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(idToken, keys, { algorithms: ['RS256'], issuer, audience: clientId, requiredClaims: ['sub', 'exp', 'iat'] }));
      } catch (err) {
        throw idTokenFailure(err);
      }
      const claims = payload as IdTokenClaims;
      if (claims.azp !== undefined && claims.azp !== clientId) throw new IdTokenError('audience', 'The ID token\'s azp is not this client');
      if (verify.nonce !== undefined && claims.nonce !== verify.nonce) throw new IdTokenError('nonce', 'The ID token\'s nonce is not the one sent');
      if (verify.maxAge !== undefined) {
        if (typeof claims.auth_time !== 'number') throw new IdTokenError('auth_time', 'The ID token has no auth_time');
        if (Math.floor(Date.now() / 1000) - claims.auth_time > verify.maxAge) throw new IdTokenError('auth_time', 'The sign-in is older than maxAge');
      }
      return claims;
    },

    logoutUrl(params = {}) {
      return logoutUrl(baseUrl, { ...params, clientId: params.clientId ?? options.clientId });
    },

    async exchangeToken(params) {
      const form: Record<string, string> = { grant_type: 'authorization_code', code: params.code };
      if (params.redirectUri !== undefined) form.redirect_uri = params.redirectUri;
      if (params.codeVerifier !== undefined) form.code_verifier = params.codeVerifier;
      const request = authenticated('exchangeToken', form, params);
      const { data, error, response } = await http.POST('/api/oauth/token', {
        body: request.form as components['schemas']['TokenRequest'],
        bodySerializer: request.bodySerializer,
        headers: request.headers,
      });
      if (error !== undefined || data === undefined) throw failure(response, error);
      return data;
    },

    async refresh(refreshToken, refreshOptions = {}) {
      const form: Record<string, string> = { grant_type: 'refresh_token', refresh_token: refreshToken };
      const { scope } = refreshOptions;
      if (scope !== undefined) form.scope = Array.isArray(scope) ? scope.join(' ') : scope;
      const request = authenticated('refresh', form, refreshOptions);
      const { data, error, response } = await http.POST('/api/oauth/token', {
        body: request.form as components['schemas']['TokenRequest'],
        bodySerializer: request.bodySerializer,
        headers: request.headers,
      });
      if (error !== undefined || data === undefined) throw failure(response, error);
      // Every refresh answers a new refresh token (the contract's TokenResponse.refresh_token).
      return data as RefreshedTokenResponse;
    },

    async startDeviceAuthorization(deviceOptions = {}) {
      const form: Record<string, string> = {};
      const { scope } = deviceOptions;
      if (scope !== undefined) form.scope = Array.isArray(scope) ? scope.join(' ') : scope;
      const request = authenticated('startDeviceAuthorization', form, deviceOptions);
      const { data, error, response } = await http.POST('/api/oauth/device_authorization', {
        body: request.form,
        bodySerializer: request.bodySerializer,
        headers: request.headers,
      });
      if (error !== undefined || data === undefined) throw failure(response, error);
      return data;
    },

    async pollDeviceToken(authorization, pollOptions = {}) {
      const { signal, onPending, sleep = (ms: number) => timer(ms, signal) } = pollOptions;
      const started = Date.now();
      const lifetime = authorization.expires_in * 1000;
      let interval = authorization.interval;
      let waited = 0;
      for (;;) {
        signal?.throwIfAborted();
        const wait = interval * 1000;
        // The code would be dead by the next poll: stop asking (RFC 8628 3.5), with the service's own answer.
        if (Math.max(Date.now() - started, waited) + wait > lifetime) {
          const body = { message: DEVICE_CODE_EXPIRED, error: 'expired_token', error_description: DEVICE_CODE_EXPIRED };
          throw new IdentityServiceError(400, DEVICE_CODE_EXPIRED, body, 'expired_token');
        }
        await abortable(sleep(wait), signal);
        waited += wait;
        const request = authenticated('pollDeviceToken', { grant_type: DEVICE_CODE_GRANT, device_code: authorization.device_code }, pollOptions);
        const { data, error, response } = await abortable(
          http.POST('/api/oauth/token', {
            body: request.form as components['schemas']['TokenRequest'],
            bodySerializer: request.bodySerializer,
            headers: request.headers,
            signal,
          }),
          signal,
        );
        if (error === undefined && data !== undefined) return data;
        const refusal = failure(response, error);
        if (refusal.oauthError === 'slow_down') interval += SLOW_DOWN_SECONDS;
        else if (refusal.oauthError !== 'authorization_pending') throw refusal;
        onPending?.({ interval });
      }
    },

    async whois(accessToken) {
      const { data, error, response } = await http.GET('/api/oauth/whois', {
        headers: { Authorization: `Bearer ${accessToken}` },
      });
      if (error !== undefined || data === undefined) throw failure(response, error);
      return data;
    },

    async userInfo(id) {
      const { data, error, response } = await http.GET('/api/users/info', { params: { query: { id: String(id) } } });
      if (error !== undefined || data === undefined) throw failure(response, error);
      return data.user;
    },

    pictureUrl(user, size) {
      return pictureUrl(baseUrl, user, size);
    },

    async fetchPicture(user, size) {
      const response = await fetchImpl(pictureUrl(baseUrl, user, size), { headers: options.headers });
      if (!response.ok) {
        const text = await response.text();
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON: keep the text
        }
        throw failure(response, body);
      }
      return new Uint8Array(await response.arrayBuffer());
    },

    authorizeUrl(params) {
      const clientId = params.clientId ?? options.clientId;
      if (!clientId) throw new TypeError('authorizeUrl needs clientId');
      return authorizeUrl(baseUrl, { ...params, clientId });
    },
  };
}
