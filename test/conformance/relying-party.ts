/**
 * The conformance suite's side of each module (openid-certification/conformance-suite,
 * openid/AbstractOIDCCServerTest.java and the conditions it calls), driving the real server over
 * HTTP: discovery and the keys, the authorization request in a browser with a cookie jar (a person
 * signing in on the sign-in page and pressing Authorize when the consent page shows), the token
 * request with client_secret_basic or client_secret_post, the ID token's checks and UserInfo.
 * Each check is named after the suite's condition and called with the suite's severity.
 */
import { createHash } from 'node:crypto';
import { compactVerify, createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet } from 'jose';
import { freePort } from '../../scripts/free-port.js';
import { registerOAuthApp } from '../../src/oauth/clients.js';
import { keepCookies, makeUser, startServer, TEST_PASSWORD, type TestServer } from '../helpers.js';
import type { UserRecord } from '../../src/domain/users.js';
import type { ModuleRun } from './harness.js';

/** The suite's own address for the module (base_url): the RP's redirect and post-logout URIs live under it. */
export const RP_BASE = 'https://conformance.test/test/a/identity-service';
export const REDIRECT_URI = `${RP_BASE}/callback`;
export const POST_LOGOUT_REDIRECT_URI = `${RP_BASE}/post_logout_redirect`;

export interface StaticClient {
  client_id: string;
  client_secret: string;
}

export interface Op {
  t: TestServer;
  issuer: string;
  discoveryUrl: string;
  /** `client` of the suite's configuration (client_secret_basic) and `client_secret_post`'s. */
  client: StaticClient;
  clientSecretPost: StaticClient;
  user: UserRecord;
  /** Sends a request addressed to the public URL to the server (the TLS terminator's part, when PUBLIC_URL is https). */
  local(url: string): string;
  close(): Promise<void>;
}

/**
 * The OpenID Provider under test: a fresh service whose PUBLIC_URL is its own address (or `publicUrl`,
 * an https address a TLS-terminating proxy would serve), with the suite's static clients registered
 * by their developer (with the refresh grant, grant_types [authorization_code, refresh_token]) and
 * a person who signs in.
 */
export async function startOp(publicUrl?: string): Promise<Op> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const issuer = publicUrl ?? base;
  const t = await startServer({ PUBLIC_URL: issuer }, { port });
  const developer = await makeUser(t);
  const register = async (name: string): Promise<StaticClient> => {
    const { app, clientSecret } = await registerOAuthApp(
      { store: t.store, now: t.clock.now },
      {
        ownerId: developer.id,
        name,
        redirectUris: [REDIRECT_URI],
        postLogoutRedirectUris: [POST_LOGOUT_REDIRECT_URI],
        // oidcc-refresh-token asks for offline_access with both clients (client and client2).
        grantTypes: ['authorization_code', 'refresh_token'],
      },
    );
    return { client_id: app.clientId, client_secret: clientSecret };
  };
  const client = await register('Conformance client');
  const clientSecretPost = await register('Conformance client_secret_post');
  const user = await makeUser(t);
  return {
    t,
    issuer,
    discoveryUrl: `${issuer}/.well-known/openid-configuration`,
    client,
    clientSecretPost,
    user,
    local: (url) => (url.startsWith(issuer) ? `${base}${url.slice(issuer.length)}` : url),
    close: () => t.close(),
  };
}

/** What the module learnt in configure(): the discovery document and the keys. */
export interface Server {
  metadata: Record<string, unknown>;
  jwks: JSONWebKeySet;
}

/** An answer's status, Content-Type and body: parsed JSON, or the text when it is not JSON. */
async function answerOf(res: Response): Promise<{ status: number; type: string; body: unknown }> {
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, type: res.headers.get('content-type') ?? '', body };
}

/** A GET for JSON (discovery, the keys), sent to the server as the public address names it. */
export async function getJson(op: Op, url: string): Promise<{ status: number; type: string; body: unknown }> {
  return answerOf(await fetch(op.local(url), { headers: { Accept: 'application/json' } }));
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** ValidateJwksSequence and the kid checks (configure steps 6 to 9). */
export function checkJwks(m: ModuleRun, jwks: unknown, requireKid: boolean): void {
  m.check('EnsureJwksHasNoPrivateOrSymmetricKeyMaterial', 'FAILURE', () => {
    const keys = isObject(jwks) && Array.isArray(jwks.keys) ? (jwks.keys as Record<string, unknown>[]) : [];
    const secret = keys.flatMap((k) => ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'oth'].filter((member) => member in k));
    return secret.length ? `private or symmetric members: ${secret.join(', ')}` : undefined;
  });
  m.check('ValidateJwksStructure', 'FAILURE', () => {
    if (!isObject(jwks) || !Array.isArray(jwks.keys)) return 'no keys array';
    for (const key of jwks.keys as Record<string, unknown>[]) {
      if (key.kty !== 'RSA') continue;
      for (const member of ['n', 'e']) {
        const value = key[member];
        if (typeof value !== 'string' || !BASE64URL.test(value)) return `RSA key without base64url ${member}`;
      }
    }
    return undefined;
  });
  m.check('WarnOnUnusableJwksKeys', 'WARNING', () => {
    const keys = isObject(jwks) && Array.isArray(jwks.keys) ? (jwks.keys as Record<string, unknown>[]) : [];
    return keys.some((k) => !['RSA', 'EC', 'OKP'].includes(String(k.kty))) ? 'a key of an unknown type' : undefined;
  });
  if (!requireKid) return;
  const keys = isObject(jwks) && Array.isArray(jwks.keys) ? (jwks.keys as Record<string, unknown>[]) : [];
  m.check('CheckForKeyIdInServerJWKs', 'FAILURE', () => (keys.every((k) => typeof k.kid === 'string' && k.kid.trim() !== '') ? undefined : 'a key without kid'));
  m.check('CheckDistinctKeyIdValueInServerJWKs', 'FAILURE', () => (new Set(keys.map((k) => k.kid)).size === keys.length ? undefined : 'duplicate kid'));
}

/** configure() of every flow module (AbstractOIDCCServerTest): discovery, the keys, the client's auth method. */
export async function configure(m: ModuleRun, op: Op, auth: 'client_secret_basic' | 'client_secret_post'): Promise<Server> {
  const discovery = await getJson(op, op.discoveryUrl);
  m.require('GetDynamicServerConfiguration', () => (discovery.status < 200 || discovery.status > 299 ? `HTTP ${discovery.status}` : isObject(discovery.body) ? undefined : 'not a JSON object'));
  const metadata = discovery.body as Record<string, unknown>;
  m.require('CheckServerConfiguration', () => {
    for (const member of ['authorization_endpoint', 'token_endpoint', 'issuer']) {
      const value = metadata[member];
      if (typeof value !== 'string' || value === '' || !URL.canParse(value)) return `${member} is not a URL`;
    }
    return undefined;
  });
  const jwksUri = m.extract('FetchServerKeys', typeof metadata.jwks_uri === 'string' ? metadata.jwks_uri : undefined, 'no jwks_uri');
  const keys = await getJson(op, jwksUri);
  m.require('FetchServerKeys', () => (isObject(keys.body) ? undefined : 'the keys are not JSON'));
  m.check('CheckServerKeysIsValid', 'WARNING', () => (isObject(keys.body) && Array.isArray(keys.body.keys) ? undefined : 'not a JWK Set'));
  checkJwks(m, keys.body, true);
  const methods = metadata.token_endpoint_auth_methods_supported;
  if (auth === 'client_secret_basic') {
    m.check('EnsureServerConfigurationSupportsClientSecretBasic', 'FAILURE', () =>
      methods === undefined || (Array.isArray(methods) && methods.includes('client_secret_basic')) ? undefined : 'client_secret_basic not listed',
    );
  } else {
    m.check('EnsureServerConfigurationSupportsClientSecretPost', 'FAILURE', () =>
      Array.isArray(methods) && methods.includes('client_secret_post') ? undefined : 'client_secret_post not listed',
    );
  }
  m.require('SetProtectedResourceUrlToUserInfoEndpoint', () => (typeof metadata.userinfo_endpoint === 'string' ? undefined : 'no userinfo_endpoint'));
  return { metadata, jwks: keys.body as JSONWebKeySet };
}

/** OIDCCCheckScopesSupportedContainScopeTest: a scope module skips when discovery does not list every scope it asks for. */
export function skipIfScopesNotSupported(m: ModuleRun, server: Server, scope: string): void {
  const supported = server.metadata.scopes_supported;
  const missing = scope.split(' ').filter((s) => !Array.isArray(supported) || !supported.includes(s));
  m.check('OIDCCCheckScopesSupportedContainScopeTest', 'INFO', () => (missing.length ? `scopes_supported lacks ${missing.join(', ')}` : undefined));
  if (missing.length) m.skip(`scopes_supported lacks ${missing.join(', ')}`);
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** RandomStringGenerator: `length` characters, the last four `-._~` when longer than 10 (the suite's long states and nonces). */
export function randomValue(length = 10): string {
  const alnum = Array.from({ length: length > 10 ? length - 4 : length }, () => ALNUM[Math.floor(Math.random() * ALNUM.length)]).join('');
  return length > 10 ? `${alnum}-._~` : alnum;
}

/** A browser with a cookie jar, as HtmlUnit keeps one through a module. */
export class Browser {
  private readonly cookies = new Map<string, string>();

  constructor(private readonly op: Op) {}

  async request(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Response> {
    const headers: Record<string, string> = { Accept: 'text/html,application/xhtml+xml' };
    if (this.cookies.size) headers.Cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    let body: string | undefined;
    if (init.form) {
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    }
    const res = await fetch(this.op.local(url), { method: init.method ?? (init.form ? 'POST' : 'GET'), headers, body, redirect: 'manual' });
    keepCookies(this.cookies, res);
    return res;
  }
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
const unescape = (value: string): string => value.replace(/&(?:amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e]!);

/** The hidden fields of the page's form that posts to `action`, or undefined when it has none. */
function formFields(page: string, action: string): Record<string, string> | undefined {
  const form = new RegExp(`<form method="post" action="${action.replace(/[/?]/g, '\\$&')}"[^>]*>([\\s\\S]*?)</form>`).exec(page);
  if (!form) return undefined;
  const fields: Record<string, string> = {};
  for (const [, name, value] of form[1]!.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) fields[name!] = unescape(value!);
  return fields;
}

/** Where the browser ended: at the RP's redirect URI (its query), or on a page of the OP. */
export type Landing =
  | { callback: URL; signInPages: number; consentPages: number }
  | { page: string; status: number; url: string; signInPages: number; consentPages: number };

/**
 * The browser's part of an authorization request (BuildPlainRedirectToAuthorizationEndpoint, or
 * the POST of oidcc-ensure-post-request-succeeds): follows the OP's redirects; on the sign-in
 * page the person signs in, on the consent page they press Authorize; stops at the RP's
 * redirect URI or at any other page (an error page).
 */
export async function browse(browser: Browser, op: Op, start: { url: string; form?: Record<string, string> }, rpBase = RP_BASE): Promise<Landing> {
  let signInPages = 0;
  let consentPages = 0;
  let url = start.url;
  let res = await browser.request(url, start.form ? { form: start.form } : {});
  for (let hops = 0; hops < 20; hops++) {
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      const next = new URL(location, url).toString();
      if (next.startsWith(rpBase)) return { callback: new URL(next), signInPages, consentPages };
      url = next;
      res = await browser.request(url);
      continue;
    }
    const page = await res.text();
    const signIn = res.status === 200 ? formFields(page, '/signin') : undefined;
    if (signIn) {
      signInPages += 1;
      url = new URL('/signin', url).toString();
      res = await browser.request(url, { form: { ...signIn, name: op.user.name, password: TEST_PASSWORD } });
      continue;
    }
    const consent = res.status === 200 ? formFields(page, '/oauth') : undefined;
    if (consent && 'client_id' in consent) {
      consentPages += 1;
      url = new URL('/oauth', url).toString();
      res = await browser.request(url, { form: { ...consent, decision: 'authorize' } });
      continue;
    }
    return { page, status: res.status, url, signInPages, consentPages };
  }
  throw new Error('more than 20 redirects');
}

/** CreateAuthorizationRequestSteps: the standard request, parameters sorted as the suite sends them. */
export function authorizationRequest(client: StaticClient, extra: Record<string, string | undefined> = {}, options: { nonce?: string; state?: string } = {}): Record<string, string> {
  const params: Record<string, string | undefined> = {
    client_id: client.client_id,
    nonce: options.nonce ?? randomValue(),
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    scope: 'openid',
    state: options.state ?? randomValue(),
    ...extra,
  };
  return Object.fromEntries(
    Object.entries(params)
      .filter((entry): entry is [string, string] => entry[1] !== undefined)
      .sort(([a], [b]) => a.localeCompare(b)),
  );
}

export function authorizationUrl(server: Server, params: Record<string, string>): string {
  return `${server.metadata.authorization_endpoint as string}?${new URLSearchParams(params)}`;
}

/** The callback checks before the token request (§2.5): iss, no error, the state, the code. */
export function processCallback(m: ModuleRun, server: Server, landing: Landing, sent: Record<string, string>): string {
  const callback = m.extract('ExpectRedirectToCallback', 'callback' in landing ? landing.callback : undefined, `no redirect to the RP: HTTP ${'status' in landing ? landing.status : ''} page`);
  const query = Object.fromEntries(callback.searchParams);
  m.check('ValidateIssIfPresentInAuthorizationResponse', 'FAILURE', () =>
    query.iss === undefined || query.iss === server.metadata.issuer ? undefined : `iss ${query.iss} is not the issuer`,
  );
  m.require('CheckIfAuthorizationEndpointError', () => (query.error ? `error=${query.error} ${query.error_description ?? ''}` : undefined));
  m.check('CheckStateInAuthorizationResponse', 'FAILURE', () => (query.state === sent.state ? undefined : `state ${query.state} is not ${sent.state}`));
  return m.extract('ExtractAuthorizationCodeFromAuthorizationResponse', query.code || undefined, 'no code');
}

/** RFC 6749 5.2's characters of error_description (and of the suite's checks of it): no `"` or `\`, printable ASCII, TAB, CR, LF. */
// eslint-disable-next-line no-control-regex -- TAB, LF and CR are what the suite allows besides printable ASCII.
export const ERROR_DESCRIPTION = /^[\x09\x0A\x0D\x20-\x21\x23-\x5B\x5D-\x7E]+$/;

/** The generic checks of an error redirect (§2.10), then the error value itself. */
export function checkErrorRedirect(m: ModuleRun, server: Server, landing: Landing, sent: Record<string, string>, accepted: readonly string[], condition: string): void {
  const callback = m.extract('ExpectRedirectToCallback', 'callback' in landing ? landing.callback : undefined, 'the OP showed a page instead of redirecting with the error');
  const query = Object.fromEntries(callback.searchParams);
  m.check('CheckStateInAuthorizationResponse', 'FAILURE', () => (query.state === sent.state ? undefined : `state ${query.state} is not ${sent.state}`));
  m.check('ValidateIssIfPresentInAuthorizationResponse', 'FAILURE', () => (query.iss === undefined || query.iss === server.metadata.issuer ? undefined : 'iss is not the issuer'));
  m.check('EnsureErrorFromAuthorizationEndpointResponse', 'FAILURE', () => (query.error ? undefined : 'no error'));
  m.check('RejectAuthCodeInAuthorizationEndpointResponse', 'FAILURE', () => (query.code === undefined ? undefined : 'a code came with the error'));
  m.check('CheckForUnexpectedParametersInErrorResponseFromAuthorizationEndpoint', 'WARNING', () => {
    const unexpected = Object.keys(query).filter((k) => !['error', 'error_description', 'error_uri', 'state', 'session_state', 'iss'].includes(k));
    return unexpected.length ? `unexpected ${unexpected.join(', ')}` : undefined;
  });
  m.check('CheckErrorDescriptionFromAuthorizationEndpointResponseErrorContainsCRLFTAB', 'WARNING', () => (/[\r\n\t]/.test(query.error_description ?? '') ? 'CR, LF or TAB' : undefined));
  m.check('ValidateErrorDescriptionFromAuthorizationEndpointResponseError', 'FAILURE', () =>
    query.error_description === undefined || ERROR_DESCRIPTION.test(query.error_description) ? undefined : 'characters outside RFC 6749',
  );
  m.check(condition, 'FAILURE', () => (accepted.includes(query.error ?? '') ? undefined : `error=${query.error}, expected one of ${accepted.join(', ')}`));
}

export interface TokenCall {
  status: number;
  type: string;
  headers: Headers;
  body: Record<string, unknown>;
}

/** The token request (§2.6) with the client's authentication method. */
export async function callTokenEndpoint(op: Op, server: Server, client: StaticClient, auth: 'client_secret_basic' | 'client_secret_post', form: Record<string, string>): Promise<TokenCall> {
  const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' };
  const body = { ...form };
  if (auth === 'client_secret_basic') {
    headers.Authorization = `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`).toString('base64')}`;
  } else {
    body.client_id = client.client_id;
    body.client_secret = client.client_secret;
  }
  const res = await fetch(op.local(server.metadata.token_endpoint as string), { method: 'POST', headers, body: new URLSearchParams(body).toString() });
  const text = await res.text();
  const parsed: unknown = JSON.parse(text);
  if (!isObject(parsed)) throw new Error(`the token endpoint did not return a JSON object: ${text.slice(0, 200)}`);
  return { status: res.status, type: res.headers.get('content-type') ?? '', headers: res.headers, body: parsed };
}

export interface Tokens {
  accessToken: string;
  tokenType: string;
  idToken: string;
  claims: Record<string, unknown>;
  header: Record<string, unknown>;
  response: TokenCall;
}

/** requestAuthorizationCode (§2.7): the token response's checks, then the ID token's (§2.8). */
export async function exchangeCode(
  m: ModuleRun,
  op: Op,
  server: Server,
  client: StaticClient,
  auth: 'client_secret_basic' | 'client_secret_post',
  code: string,
  sent: Record<string, string>,
  extra: Record<string, string> = {},
): Promise<Tokens> {
  const response = await callTokenEndpoint(op, server, client, auth, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, ...extra });
  const body = response.body;
  m.require('CheckTokenEndpointHttpStatus200', () => (response.status === 200 ? undefined : `HTTP ${response.status} ${JSON.stringify(body)}`));
  m.require('CheckIfTokenEndpointResponseError', () => (body.error === undefined ? undefined : `error ${JSON.stringify(body.error)}`));
  m.require('CheckForAccessTokenValue', () => (typeof body.access_token === 'string' && body.access_token !== '' && typeof body.token_type === 'string' && body.token_type !== '' ? undefined : 'no access_token or token_type'));
  m.check('ExtractExpiresInFromTokenEndpointResponse', 'INFO', () => (body.expires_in === undefined ? 'no expires_in' : undefined));
  if (body.expires_in !== undefined) {
    m.check('ValidateExpiresIn', 'FAILURE', () => (typeof body.expires_in === 'number' && body.expires_in > 0 && body.expires_in <= 31_536_000 ? undefined : `expires_in ${String(body.expires_in)}`));
  }
  m.check('CheckForRefreshTokenValue', 'INFO', () => (body.refresh_token === undefined ? 'no refresh_token' : undefined));
  const idToken = m.extract('ExtractIdTokenFromTokenResponse', typeof body.id_token === 'string' ? body.id_token : undefined, 'no id_token');
  const parts = idToken.split('.');
  m.require('ExtractIdTokenFromTokenResponse', () => (parts.length === 3 ? undefined : 'not a JWS'));
  const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString()) as Record<string, unknown>;
  const header = decodeProtectedHeader(idToken) as Record<string, unknown>;
  const tokens: Tokens = { accessToken: body.access_token as string, tokenType: body.token_type as string, idToken, claims, header, response };
  await checkIdToken(m, op, server, client, tokens, sent.nonce);
  return tokens;
}

const STRING_CLAIMS = ['sub', 'name', 'given_name', 'family_name', 'middle_name', 'nickname', 'preferred_username', 'profile', 'picture', 'website', 'email', 'gender', 'zoneinfo', 'locale', 'phone_number', 'txn'];

/** ValidateIdTokenStandardClaims / ValidateUserInfoStandardClaims: each standard claim of its type. */
export function standardClaimsProblem(claims: Record<string, unknown>, skip: readonly string[] = []): string | undefined {
  for (const [name, value] of Object.entries(claims)) {
    if (skip.includes(name)) continue;
    if (STRING_CLAIMS.includes(name) && (typeof value !== 'string' || value.trim() === '' || value.toLowerCase() === 'null')) return `${name} is not a non-blank string`;
    if ((name === 'email_verified' || name === 'phone_number_verified') && typeof value !== 'boolean') return `${name} is not a boolean`;
    if (name === 'updated_at' && typeof value !== 'number') return 'updated_at is not a number';
    if (name === 'birthdate' && !(typeof value === 'string' && /^(\d{4}|\d{4}-\d{2}-\d{2})$/.test(value))) return 'birthdate';
    if (name === 'address' && !isObject(value)) return 'address is not an object';
  }
  return undefined;
}

const ID_TOKEN_PROTOCOL_CLAIMS = ['iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'acr', 'amr', 'azp', 'c_hash', 'at_hash', 's_hash', 'jti', 'nbf', 'verified_claims'];

/** PerformStandardIdTokenChecks (§2.8), every one a FAILURE that continues. */
async function checkIdToken(m: ModuleRun, op: Op, server: Server, client: StaticClient, tokens: Tokens, nonce: string | undefined): Promise<void> {
  const c = tokens.claims;
  const now = Math.floor(op.t.clock.now() / 1000);
  m.check('ValidateIdToken', 'FAILURE', () => {
    if (c.iss !== server.metadata.issuer) return `iss ${String(c.iss)}`;
    if (!(c.aud === client.client_id || (Array.isArray(c.aud) && c.aud.includes(client.client_id)))) return 'aud is not the client';
    if (typeof c.exp !== 'number' || c.exp < now - 300) return 'exp missing or past';
    if (typeof c.iat !== 'number' || c.iat > now + 300 || c.iat < now - 300) return 'iat missing or out of range';
    if (c.auth_time !== undefined && (typeof c.auth_time !== 'number' || c.auth_time > now + 300 || c.auth_time < now - 365 * 86400)) return 'auth_time out of range';
    if (c.acr === '') return 'acr is empty';
    return undefined;
  });
  m.check('ValidateIdTokenStandardClaims', 'FAILURE', () => standardClaimsProblem(c, ID_TOKEN_PROTOCOL_CLAIMS));
  m.check('ValidateIdTokenNonce', 'FAILURE', () => (c.nonce === nonce ? undefined : `nonce ${String(c.nonce)} is not ${nonce}`));
  m.check('ValidateIdTokenACRClaimAgainstRequest', 'FAILURE', () => (c.acr === undefined || typeof c.acr === 'string' ? undefined : 'acr is not a string'));
  let verified = false;
  try {
    const kid = tokens.header.kid;
    const candidates = server.jwks.keys.filter((k) => kid === undefined || k.kid === kid);
    if (candidates.some((k) => k.kty !== 'RSA' || (k.alg !== undefined && k.alg !== tokens.header.alg) || (k.use !== undefined && k.use !== 'sig'))) throw new Error('an incompatible key');
    await compactVerify(tokens.idToken, createLocalJWKSet(server.jwks));
    verified = true;
  } catch (err) {
    m.check('ValidateIdTokenSignature', 'FAILURE', () => (err instanceof Error ? err.message : 'does not verify'));
  }
  if (verified) m.check('ValidateIdTokenSignature', 'FAILURE', () => undefined);
  m.check('CheckForSubjectInIdToken', 'FAILURE', () => (typeof c.sub === 'string' && c.sub.length > 0 && c.sub.length <= 255 && /^[\x20-\x7e]+$/.test(c.sub) ? undefined : 'sub'));
  m.check('EnsureIdTokenUpdatedAtValid', 'FAILURE', () =>
    c.updated_at === undefined || (typeof c.updated_at === 'number' && c.updated_at <= now + 300 && c.updated_at >= 631_152_000) ? undefined : 'updated_at',
  );
}

/** The left half of SHA-256 of `value`, base64url: at_hash and c_hash for RS256 (ValidateAtHash, ValidateCHash). */
export function halfHash(value: string): string {
  const digest = createHash('sha256').update(value, 'ascii').digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

interface UserInfoCall {
  status: number;
  type: string;
  body: unknown;
}

/** CallProtectedResource / CallUserInfoEndpoint: GET or POST with the token in the header, or POST with it in the body. */
export async function callUserInfo(op: Op, server: Server, tokens: Pick<Tokens, 'accessToken' | 'tokenType'>, how: 'get' | 'post-header' | 'post-body' = 'get'): Promise<UserInfoCall> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  let body: string | undefined;
  if (how === 'post-body') {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams({ access_token: tokens.accessToken }).toString();
  } else {
    headers.Authorization = `${tokens.tokenType} ${tokens.accessToken}`;
    if (how === 'post-header') headers['Content-Type'] = 'application/x-www-form-urlencoded';
  }
  return answerOf(await fetch(op.local(server.metadata.userinfo_endpoint as string), { method: how === 'get' ? 'GET' : 'POST', headers, body }));
}

/** The userinfo call after the token request (§2.9): its status only. */
export async function requestProtectedResource(m: ModuleRun, op: Op, server: Server, tokens: Pick<Tokens, 'accessToken' | 'tokenType'>): Promise<void> {
  m.require('CallProtectedResource', () => (['bearer', 'dpop'].includes(tokens.tokenType.toLowerCase()) ? undefined : `token_type ${tokens.tokenType}`));
  const res = await callUserInfo(op, server, tokens);
  m.check('EnsureHttpStatusCodeIs200', 'FAILURE', () => (res.status === 200 ? undefined : `HTTP ${res.status}`));
}

const mime = (type: string): string => type.split(';')[0]!.trim().toLowerCase();

/** The userinfo modules' second call (§2.12). */
export function validateUserInfo(m: ModuleRun, res: UserInfoCall, contentType: boolean): Record<string, unknown> {
  m.check('EnsureHttpStatusCodeIs200', 'FAILURE', () => (res.status === 200 ? undefined : `HTTP ${res.status}`));
  if (contentType) m.check('EnsureContentTypeJson', 'FAILURE', () => (mime(res.type) === 'application/json' ? undefined : res.type));
  const info = m.extract('ExtractUserInfoFromUserInfoEndpointResponse', isObject(res.body) ? res.body : undefined, 'not a JSON object');
  m.check('ValidateUserInfoStandardClaims', 'FAILURE', () => (Object.keys(info).length === 0 ? 'empty' : standardClaimsProblem(info)));
  m.check('EnsureUserInfoContainsSub', 'FAILURE', () => (typeof info.sub === 'string' ? undefined : 'no sub'));
  m.check('EnsureUserInfoUpdatedAtValid', 'FAILURE', () => (info.updated_at === undefined || typeof info.updated_at === 'number' ? undefined : 'updated_at'));
  m.check('EnsureMemberValuesInClaimNameReferenceToMemberNamesInClaimSources', 'FAILURE', () =>
    ('_claim_names' in info) === ('_claim_sources' in info) ? undefined : '_claim_names without _claim_sources',
  );
  return info;
}

/** The standard claims of each scope (VerifyScopesReturnedInUserInfoClaims). */
const SCOPE_CLAIMS: Record<string, readonly string[]> = {
  openid: ['sub'],
  profile: ['name', 'given_name', 'family_name', 'middle_name', 'nickname', 'profile', 'picture', 'website', 'gender', 'birthdate', 'zoneinfo', 'locale', 'updated_at', 'preferred_username'],
  email: ['email', 'email_verified'],
  address: ['address'],
  phone: ['phone_number', 'phone_number_verified'],
};

/** The returned-claims modules' second userinfo call (§2.13). */
export async function validateReturnedClaims(m: ModuleRun, op: Op, server: Server, tokens: Tokens, scope: string): Promise<Record<string, unknown>> {
  const info = validateUserInfo(m, await callUserInfo(op, server, tokens), false);
  m.check('VerifyUserInfoAndIdTokenInTokenEndpointSameSub', 'FAILURE', () => (info.sub === tokens.claims.sub ? undefined : 'sub differs from the ID token'));
  m.check('VerifyScopesReturnedInUserInfoClaims', 'WARNING', () => {
    const missing = scope.split(' ').flatMap((s) => (SCOPE_CLAIMS[s] ?? []).filter((claim) => !(claim in info)));
    return missing.length ? `UserInfo lacks ${missing.join(', ')}` : undefined;
  });
  return info;
}

/** The happy flow of one client (§2.4 to §2.9): authorization, token, ID token, userinfo. */
export async function happyFlow(
  m: ModuleRun,
  op: Op,
  server: Server,
  browser: Browser,
  options: { client?: StaticClient; auth?: 'client_secret_basic' | 'client_secret_post'; extra?: Record<string, string | undefined>; state?: string; nonce?: string } = {},
): Promise<{ tokens: Tokens; code: string; sent: Record<string, string>; landing: Landing }> {
  const client = options.client ?? op.client;
  const sent = authorizationRequest(client, options.extra, { state: options.state, nonce: options.nonce });
  const landing = await browse(browser, op, { url: authorizationUrl(server, sent) });
  const code = processCallback(m, server, landing, sent);
  const tokens = await exchangeCode(m, op, server, client, options.auth ?? 'client_secret_basic', code, sent);
  await requestProtectedResource(m, op, server, tokens);
  return { tokens, code, sent, landing };
}

