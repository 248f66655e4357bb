import { InvalidInput, NotFound, Unauthenticated } from '../domain/errors.js';
import type { components } from '../../generated/api.js';
import type { Audit } from '../audit.js';
import type { AppPatch, AppRecord } from '../domain/apps.js';
import type { Store } from '../store/types.js';
import { digestsEqual, hashSecret, randomSecret } from '../security/secrets.js';
import { CLIENT_ID_BYTES, CLIENT_SECRET_BYTES } from './secrets.js';
import { CONTROL_CHARACTER, CONTROL_OR_SPACE } from '../domain/text.js';
import { appGrantTypes, DEFAULT_GRANT_TYPES } from './grant-types.js';

export interface Deps {
  store: Store;
  now: () => number;
  /** The audit trail (code_replay_detected); absent where nobody listens (the CLI). */
  audit?: Audit;
}

const MAX_REDIRECT_URIS = 10;
const MAX_POST_LOGOUT_REDIRECT_URIS = 10;

/** The refusals of public clients (docs/oauth.md#public-clients). */
const PUBLIC_APP_HAS_NO_SECRET = 'A public app has no client secret';
export const PUBLIC_CLIENT_NEEDS_PKCE = 'A public client must send a PKCE code_challenge (S256)';
const PUBLIC_APP_NO_INTROSPECTION = 'A public app cannot use introspection: it has no secret';
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * An address a browser is sent to or frames: absolute https, or http on localhost for
 * development, with no fragment. `label` names it in the message ("Redirect URI", "Game URL").
 */
export function webAddressProblem(uri: string, label: string): string | undefined {
  if (uri.length > 2048) return `${label} is longer than 2048 characters`;
  if (CONTROL_OR_SPACE.test(uri)) return `${label} must not contain spaces or control characters`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `${label} is not an absolute URL: ${uri}`;
  }
  if (url.hash !== '' || uri.includes('#')) return `${label} must not contain a fragment: ${uri}`;
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return undefined;
  return `${label} must use https (http is allowed on localhost only): ${uri}`;
}

function redirectUriProblem(uri: string): string | undefined {
  return webAddressProblem(uri, 'Redirect URI');
}

/**
 * A loopback IP literal redirect URI, cut into host, port and the rest. Only IP literals get the
 * free port: RFC 8252 8.3 advises against `localhost`, which a resolver could send elsewhere.
 */
const LOOPBACK_IP_URI = /^http:\/\/(127\.0\.0\.1|\[::1\])(?::(\d{1,5}))?([/?][^]*)?$/;

/**
 * Exact string match, except that a registered `http://127.0.0.1/...` or `http://[::1]/...`
 * matches the same URI on any port (RFC 8252 7.3): a native app listens on whatever port the
 * system gives it. Everything but the port must still be identical, character for character, so
 * no URL normalisation (case, percent-encoding, dot segments) can widen the match.
 */
export function redirectUriMatches(registered: string, requested: string): boolean {
  if (registered === requested) return true;
  const reg = LOOPBACK_IP_URI.exec(registered);
  const req = LOOPBACK_IP_URI.exec(requested);
  if (!reg || !req) return false;
  if (req[2] !== undefined && (Number(req[2]) < 1 || Number(req[2]) > 65535)) return false;
  return reg[1] === req[1] && (reg[3] ?? '') === (req[3] ?? '');
}

/** An app's name as typed: 1-64 characters once trimmed, no control characters; the trimmed name. */
function appName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > 64) throw new InvalidInput('App name must be 1 to 64 characters');
  if (CONTROL_CHARACTER.test(name)) throw new InvalidInput('App name must not contain control characters');
  return trimmed;
}

/** 1 to 10 redirect URIs, each one redirectUriProblem allows; without duplicates. */
function appRedirectUris(redirectUris: string[]): string[] {
  if (redirectUris.length < 1 || redirectUris.length > MAX_REDIRECT_URIS) {
    throw new InvalidInput(`An app needs 1 to ${MAX_REDIRECT_URIS} redirect URIs`);
  }
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new InvalidInput(problem);
  }
  return [...new Set(redirectUris)];
}

/** 0 to 10 post-logout redirect URIs under the same address rules; without duplicates. */
function appPostLogoutRedirectUris(postLogoutRedirectUris: string[]): string[] {
  if (postLogoutRedirectUris.length > MAX_POST_LOGOUT_REDIRECT_URIS) {
    throw new InvalidInput(`An app has at most ${MAX_POST_LOGOUT_REDIRECT_URIS} post-logout redirect URIs`);
  }
  for (const uri of postLogoutRedirectUris) {
    const problem = webAddressProblem(uri, 'Post-logout redirect URI');
    if (problem) throw new InvalidInput(problem);
  }
  return [...new Set(postLogoutRedirectUris)];
}

/**
 * Registers an app. A confidential app's client secret is returned once and only its hash is
 * kept; a public app gets no secret at all (secretHash null, clientSecret undefined).
 */
interface AppInput {
  ownerId: number;
  name: string;
  redirectUris: string[];
  public?: boolean;
  postLogoutRedirectUris?: string[];
  /** RFC 7591 `grant_types`; default `authorization_code` alone. */
  grantTypes?: readonly string[];
}
export async function registerOAuthApp(deps: Deps, input: AppInput & { public?: false }): Promise<{ app: AppRecord; clientSecret: string }>;
export async function registerOAuthApp(deps: Deps, input: AppInput): Promise<{ app: AppRecord; clientSecret: string | undefined }>;
export async function registerOAuthApp(deps: Deps, input: AppInput): Promise<{ app: AppRecord; clientSecret: string | undefined }> {
  const name = appName(input.name);
  const redirectUris = appRedirectUris(input.redirectUris);
  const postLogoutRedirectUris = appPostLogoutRedirectUris(input.postLogoutRedirectUris ?? []);
  const grantTypes = appGrantTypes(input.grantTypes ?? DEFAULT_GRANT_TYPES);
  if (!(await deps.store.getUser(input.ownerId))) throw new NotFound(`User ${input.ownerId} not found`);
  const isPublic = input.public === true;
  const clientSecret = isPublic ? undefined : randomSecret(CLIENT_SECRET_BYTES);
  const app: AppRecord = {
    clientId: randomSecret(CLIENT_ID_BYTES),
    secretHash: clientSecret === undefined ? null : hashSecret(clientSecret),
    public: isPublic,
    ownerId: input.ownerId,
    name,
    redirectUris,
    postLogoutRedirectUris,
    grantTypes,
    createdAt: deps.now(),
  };
  await deps.store.createApp(app);
  return { app, clientSecret };
}

/**
 * Changes an app's name, redirect URIs and/or post-logout redirect URIs with registerOAuthApp's
 * rules; at least one must be given. The client id, the secret and `public` never change. Each
 * request reads the app again, so the new addresses hold from the next one (authorization,
 * end-session, a public app's CORS origins); a code keeps the redirect URI it was issued for. No
 * ownership check: the caller's (ownedApp), or the operator's CLI.
 */
export async function updateOAuthApp(
  store: Store,
  clientId: string,
  change: { name?: string; redirectUris?: string[]; postLogoutRedirectUris?: string[]; grantTypes?: readonly string[] },
): Promise<AppRecord> {
  if (Object.values(change).every((v) => v === undefined)) {
    throw new InvalidInput('Send at least one of name, redirect_uris, post_logout_redirect_uris and grant_types');
  }
  const patch: AppPatch = {};
  if (change.name !== undefined) patch.name = appName(change.name);
  if (change.redirectUris !== undefined) patch.redirectUris = appRedirectUris(change.redirectUris);
  if (change.postLogoutRedirectUris !== undefined) patch.postLogoutRedirectUris = appPostLogoutRedirectUris(change.postLogoutRedirectUris);
  if (change.grantTypes !== undefined) patch.grantTypes = appGrantTypes(change.grantTypes);
  if (!(await store.updateApp(clientId, patch))) throw new NotFound(`App ${clientId} not found`);
  const app = await store.getApp(clientId);
  // Only a deletion racing this gets here.
  if (!app) throw new NotFound(`App ${clientId} not found`);
  return app;
}

/** Replaces the app's secret; the old one stops working at once. A public app has none: 400. */
export async function rotateSecret(deps: Deps, clientId: string): Promise<string> {
  const app = await deps.store.getApp(clientId);
  if (!app) throw new NotFound(`App ${clientId} not found`);
  if (app.public) throw new InvalidInput(PUBLIC_APP_HAS_NO_SECRET);
  const clientSecret = randomSecret(CLIENT_SECRET_BYTES);
  if (!(await deps.store.setAppSecret(clientId, hashSecret(clientSecret)))) {
    throw new NotFound(`App ${clientId} not found`);
  }
  return clientSecret;
}

/** The app with this client id if `ownerId` owns it; 404 otherwise (never revealing others' apps). */
export async function ownedApp(store: Store, clientId: string, ownerId: number): Promise<AppRecord> {
  const app = await store.getApp(clientId);
  if (!app || app.ownerId !== ownerId) throw new NotFound('App not found');
  return app;
}

/** Deletes an app with its codes and tokens. */
export async function deleteApp(store: Store, clientId: string): Promise<void> {
  if (!(await store.deleteApp(clientId))) throw new NotFound(`App ${clientId} not found`);
}

/**
 * Checks client credentials against the app they name (undefined: none has that client id); 401
 * for an unknown client or a wrong secret. A public app has no secret: one sent for it is refused
 * (it shows the client confused about what it is, and a secret a public client holds is not
 * secret), and without one it is the client_id alone.
 */
function checkClient(app: AppRecord | undefined, client: ClientCredentials, options: ClientAuthOptions): AppRecord {
  const { clientSecret, challenge } = client;
  if (options.publicApps === 'refuse' && app?.public) throw new Unauthenticated(PUBLIC_APP_NO_INTROSPECTION, challenge);
  if (clientSecret === undefined) {
    // Only a public app may leave the secret out; for anything else the message stays the one a
    // confidential client always got, whether or not the client exists.
    if (app?.public) return app;
    throw new Unauthenticated('client_secret is required');
  }
  if (!app) throw new Unauthenticated('Unknown client', challenge);
  if (app.public || app.secretHash === null) throw new Unauthenticated(PUBLIC_APP_HAS_NO_SECRET, challenge);
  if (!digestsEqual(hashSecret(clientSecret), app.secretHash)) {
    throw new Unauthenticated('Invalid client secret', challenge);
  }
  return app;
}

/** An app as the JSON API shows it (never its secret hash). */
export function appView(app: AppRecord): components['schemas']['App'] {
  return {
    client_id: app.clientId,
    name: app.name,
    public: app.public,
    redirect_uris: app.redirectUris,
    post_logout_redirect_uris: app.postLogoutRedirectUris,
    grant_types: app.grantTypes,
    created_at: app.createdAt,
  };
}

/**
 * Whether a browser page at `origin` may read a response about this app (`x-cors: client`,
 * docs/decisions.md#cors): only for a public app, and only from the origins of its http(s)
 * redirect URIs or of the games its owner wrote (the pages the app runs in).
 */
export async function corsOriginAllowed(store: Store, clientId: string, origin: string): Promise<boolean> {
  const app = await store.getApp(clientId);
  if (!app?.public) return false;
  const originOf = (uri: string): string | undefined => {
    try {
      const url = new URL(uri);
      return url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : undefined;
    } catch {
      return undefined;
    }
  };
  if (app.redirectUris.some((uri) => originOf(uri) === origin)) return true;
  const games = await store.listGamesByAuthor(app.ownerId);
  return games.some((game) => originOf(game.url) === origin);
}

/** The client credentials a token, revocation or introspection request may carry in its body. */
export interface ClientAuthParams {
  client_id?: string;
  client_secret?: string;
}

interface ClientAuthOptions {
  publicApps?: 'allow' | 'refuse';
}

interface ClientCredentials {
  clientId: string;
  /** Absent: the body named a client_id and no secret (a public client, if it is one). */
  clientSecret: string | undefined;
  /** The challenge to send with a 401: Basic when the client tried Basic. */
  challenge: string | undefined;
}

const BASIC_CHALLENGE = 'Basic realm="oauth", charset="UTF-8"';

function decodeFormComponent(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    throw new Unauthenticated('Malformed Basic credentials', BASIC_CHALLENGE);
  }
}

/**
 * Client credentials from an HTTP Basic header (RFC 6749 2.3.1: id and secret form-encoded, then
 * base64) or from the body. Using both at once is refused, as RFC 6749 2.3 requires.
 */
function clientCredentials(params: ClientAuthParams, authorization: string | undefined): ClientCredentials {
  const inBody = params.client_id !== undefined || params.client_secret !== undefined;
  if (authorization !== undefined) {
    const match = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(authorization.trim());
    if (!match?.[1]) throw new Unauthenticated('Authorization header must be HTTP Basic client credentials', BASIC_CHALLENGE);
    if (params.client_secret !== undefined) {
      throw new InvalidInput('Send client credentials either in the Authorization header or in the body, not both');
    }
    const decoded = Buffer.from(match[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new Unauthenticated('Malformed Basic credentials', BASIC_CHALLENGE);
    const clientId = decodeFormComponent(decoded.slice(0, colon));
    const clientSecret = decodeFormComponent(decoded.slice(colon + 1));
    if (params.client_id !== undefined && params.client_id !== clientId) {
      throw new InvalidInput('client_id in the body does not match the Authorization header');
    }
    return { clientId, clientSecret, challenge: BASIC_CHALLENGE };
  }
  if (!inBody) throw new Unauthenticated('Client authentication is required: send client_id and client_secret', BASIC_CHALLENGE);
  if (params.client_id === undefined) throw new Unauthenticated('client_id is required');
  return { clientId: params.client_id, clientSecret: params.client_secret, challenge: undefined };
}

/**
 * Authenticates the client of a token, revocation or introspection request (RFC 6749 2.3.1): body
 * credentials or HTTP Basic, not both; 401 for unknown clients and wrong secrets. A public app
 * identifies itself with `client_id` alone in the body (RFC 6749 2.3, 3.2.1) and never with a
 * secret, unless `publicApps: 'refuse'` (introspection: confidential clients only).
 *
 * The app is read by `read` together with what the request needs next (the exchange's code, the
 * token of introspection and revocation): one read, so one round trip on PostgreSQL. What `read`
 * found beside the app is the caller's to use only once this returns, that is once the client is
 * authenticated.
 */
export async function authenticateClientRequest<T extends { app: AppRecord | undefined }>(
  params: ClientAuthParams,
  authorization: string | undefined,
  read: (clientId: string) => Promise<T>,
  options: ClientAuthOptions = {},
): Promise<T & { app: AppRecord }> {
  const client = clientCredentials(params, authorization);
  const found = await read(client.clientId);
  return { ...found, app: checkClient(found.app, client, options) };
}
