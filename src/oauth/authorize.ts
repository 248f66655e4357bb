/**
 * The traditional flow's rules (docs/decisions.md#traditional-flow, RFC 6749 4.1): the client and
 * its exact redirect_uri are checked first and never redirected to when wrong; then the access it
 * asks for (scopes, PKCE, nonce), whose errors go back to the client's redirect_uri with the state.
 */
import { InvalidInput } from '../domain/errors.js';
import type { operations } from '../../generated/api.js';
import type { AppRecord } from '../domain/apps.js';
import type { UserRecord } from '../domain/users.js';
import type { Store } from '../store/types.js';
import { PUBLIC_CLIENT_NEEDS_PKCE } from './clients.js';
import type { Deps } from './deps.js';
import { redirectUriMatches } from './redirect-uris.js';
import { issueCode } from './codes.js';
import { allowsRefresh } from './grant-types.js';
import { parseScopes, type Scope } from './scopes.js';

/** The request's parameters, named as the contract names them (query of GET /oauth). */
type AuthorizeParams = NonNullable<operations['getAuthorize']['parameters']['query']>;

/**
 * The parameters that travel from the consent page's form back to POST /oauth, in the contract's
 * order: every one getAuthorize declares, so POST /oauth applies the same sign-in policy as GET
 * (prompt, max_age, acr_values; src/oauth/authorization-policy.ts).
 */
export const AUTHORIZE_FIELDS = [
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'response_type',
  'code_challenge',
  'code_challenge_method',
  'prompt',
  'nonce',
  'max_age',
  'acr_values',
] as const satisfies readonly (keyof AuthorizeParams)[];

/** The authorization request made of these parameters alone, as the address of GET /oauth. */
export function authorizeAddressOf(params: AuthorizeParams): string {
  const query = new URLSearchParams();
  for (const name of AUTHORIZE_FIELDS) {
    const value = params[name];
    if (value !== undefined) query.append(name, value);
  }
  return `/oauth?${query}`;
}

export interface ResolvedClient {
  app: AppRecord;
  owner: UserRecord;
  redirectUri: string;
}

/** Unknown client or unregistered redirect_uri: a 400 for the error page, never a redirect. */
export async function resolveClient(store: Store, params: AuthorizeParams): Promise<ResolvedClient> {
  if (!params.client_id) throw new InvalidInput('The request has no client_id');
  const app = await store.apps.getApp(params.client_id);
  if (!app) throw new InvalidInput('Unknown client: no app has this client_id');
  if (!params.redirect_uri) throw new InvalidInput('The request has no redirect_uri');
  if (!app.redirectUris.some((registered) => redirectUriMatches(registered, params.redirect_uri!))) {
    throw new InvalidInput('The redirect_uri is not registered for this app');
  }
  const owner = await store.users.getUser(app.ownerId);
  if (!owner) throw new InvalidInput('Unknown client: no app has this client_id');
  return { app, owner, redirectUri: params.redirect_uri };
}

/** What an authorization request asks for, once checked (not a grant: that is remembered consent, src/oauth/consent.ts). */
interface RequestedAccess {
  scopes: Scope[];
  codeChallenge: string | null;
  /** OpenID Connect's nonce, for the ID token. */
  nonce: string | null;
}

export interface AuthorizationError {
  error: 'invalid_scope' | 'invalid_request' | 'unsupported_response_type' | 'request_not_supported' | 'request_uri_not_supported';
  description: string;
}

/** The request parameters a request object would have carried: never read, always refused. */
interface RequestObjectParams {
  request?: string;
  request_uri?: string;
}

/**
 * What is wrong with the request as a whole, checked once the client and its redirect URI are
 * known and before anyone is asked to sign in (as node-oidc-provider does): a request object
 * (OpenID Connect Core 6; discovery says `request_parameter_supported: false` and
 * `request_uri_parameter_supported: false`, and 3.1.2.6 names the errors), and the response type.
 * `response_type` may be left out of a plain OAuth request, as the original service allowed
 * (docs/decisions.md#traditional-flow); an OpenID Connect request (`openid` among the scopes)
 * must send it (Core 3.1.2.1, RFC 6749 3.1.1).
 */
export function checkRequestShape(params: AuthorizeParams & RequestObjectParams): AuthorizationError | undefined {
  if (params.request !== undefined) {
    return { error: 'request_not_supported', description: 'Request objects (the request parameter) are not supported' };
  }
  if (params.request_uri !== undefined) {
    return { error: 'request_uri_not_supported', description: 'Request objects by reference (the request_uri parameter) are not supported' };
  }
  if (params.response_type === undefined) {
    const openid = (params.scope ?? '').split(' ').includes('openid' satisfies Scope);
    return openid ? { error: 'invalid_request', description: 'response_type is required: send response_type=code' } : undefined;
  }
  if (params.response_type !== 'code') {
    return { error: 'unsupported_response_type', description: 'Only response_type=code is supported' };
  }
  return undefined;
}

const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/**
 * Checks the scopes and PKCE parameters (the request's shape is checkRequestShape's, asked
 * before sign-in); an error here is reported to the client by redirect. A public app
 * must send a PKCE challenge: without a secret, the verifier is what ties the code to the app
 * instance that asked for it (RFC 9700 2.1.1). `offline_access` is left out, not refused, for an
 * app not allowed the refresh grant (OpenID Connect Core 11: the provider ignores it then).
 */
export function checkRequestedAccess(params: AuthorizeParams, app: Pick<AppRecord, 'public' | 'grantTypes'>): RequestedAccess | AuthorizationError {
  const parsed = parseScopes(params.scope ?? '');
  if ('error' in parsed) return { error: 'invalid_scope', description: parsed.error };
  if (!allowsRefresh(app)) parsed.scopes = parsed.scopes.filter((s) => s !== 'offline_access');
  if (parsed.scopes.length === 0) return { error: 'invalid_scope', description: 'No scope requested' };
  const method = params.code_challenge_method;
  const challenge = params.code_challenge;
  if (method !== undefined && method !== 'S256') {
    return { error: 'invalid_request', description: 'Only the S256 code_challenge_method is supported' };
  }
  if (method !== undefined && challenge === undefined) {
    return { error: 'invalid_request', description: 'code_challenge_method was sent without a code_challenge' };
  }
  if (challenge !== undefined && !S256_CHALLENGE.test(challenge)) {
    return { error: 'invalid_request', description: 'code_challenge must be an S256 challenge: 43 base64url characters' };
  }
  if (app.public && challenge === undefined) return { error: 'invalid_request', description: PUBLIC_CLIENT_NEEDS_PKCE };
  return { scopes: parsed.scopes, codeChallenge: challenge ?? null, nonce: params.nonce ?? null };
}

/**
 * redirect_uri with the given parameters added (keeping any query it has), the state, and `iss`
 * (RFC 9207): every answer of this flow, success or error, names its issuer, so a client that
 * talks to several providers detects a mix-up. This is the only way back to the client.
 */
export function clientRedirect(redirectUri: string, params: Record<string, string>, state: string | undefined, issuer: string): string {
  const url = new URL(redirectUri);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  if (state !== undefined) url.searchParams.set('state', state);
  url.searchParams.set('iss', issuer);
  return url.toString();
}

export function authorizationErrorRedirect(client: ResolvedClient, err: AuthorizationError, state: string | undefined, issuer: string): string {
  return clientRedirect(client.redirectUri, { error: err.error, error_description: err.description }, state, issuer);
}

/** The refusal's description, as the original service words it (docs/decisions.md#traditional-flow). */
const ACCESS_DENIED_DESCRIPTION = 'The user did not consent.';

/** Where the user's decision sends the browser: a code for Authorize, access_denied for Cancel. */
export async function decide(
  deps: Deps,
  input: {
    client: ResolvedClient;
    requested: RequestedAccess;
    userId: number;
    /** When the person signed in (the ID token's auth_time). */
    authTime: number;
    /** How the person signed in (the ID token's amr and acr). */
    amr: readonly string[];
    state: string | undefined;
    decision: 'authorize' | 'cancel';
    issuer: string;
  },
): Promise<string> {
  const { client, requested, state, issuer } = input;
  if (input.decision === 'cancel') {
    return clientRedirect(client.redirectUri, { error: 'access_denied', error_description: ACCESS_DENIED_DESCRIPTION }, state, issuer);
  }
  const { code } = await issueCode(deps, {
    userId: input.userId,
    clientId: client.app.clientId,
    scope: requested.scopes.join(' '),
    redirectUri: client.redirectUri,
    codeChallenge: requested.codeChallenge,
    nonce: requested.nonce,
    authTime: input.authTime,
    amr: input.amr,
  });
  return clientRedirect(client.redirectUri, { code }, state, issuer);
}
