import { InvalidInput, NotFound, Unauthenticated } from '../domain/errors.js';
import type { components } from '../../generated/api.js';
import type { Audit } from '../audit.js';
import type { AppRecord, Store } from '../store/types.js';
import { CLIENT_ID_BYTES, CLIENT_SECRET_BYTES, digestsEqual, hashSecret, randomSecret } from './secrets.js';
import { CONTROL_CHARACTER, CONTROL_OR_SPACE } from '../domain/text.js';

export interface Deps {
  store: Store;
  now: () => number;
  /** The audit trail (code_replay_detected); absent where nobody listens (the CLI). */
  audit?: Audit;
}

const MAX_REDIRECT_URIS = 10;
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

function validateAppInput(name: string, redirectUris: string[]): void {
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > 64) throw new InvalidInput('App name must be 1 to 64 characters');
  if (CONTROL_CHARACTER.test(name)) throw new InvalidInput('App name must not contain control characters');
  if (redirectUris.length < 1 || redirectUris.length > MAX_REDIRECT_URIS) {
    throw new InvalidInput(`An app needs 1 to ${MAX_REDIRECT_URIS} redirect URIs`);
  }
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new InvalidInput(problem);
  }
}

/** Registers an app. The client secret is returned once and only its hash is kept. */
export async function registerOAuthApp(
  deps: Deps,
  input: { ownerId: number; name: string; redirectUris: string[] },
): Promise<{ app: AppRecord; clientSecret: string }> {
  validateAppInput(input.name, input.redirectUris);
  if (!(await deps.store.getUser(input.ownerId))) throw new NotFound(`User ${input.ownerId} not found`);
  const clientSecret = randomSecret(CLIENT_SECRET_BYTES);
  const app: AppRecord = {
    clientId: randomSecret(CLIENT_ID_BYTES),
    secretHash: hashSecret(clientSecret),
    ownerId: input.ownerId,
    name: input.name.trim(),
    redirectUris: [...new Set(input.redirectUris)],
    createdAt: deps.now(),
  };
  await deps.store.createApp(app);
  return { app, clientSecret };
}

/** Replaces the app's secret; the old one stops working at once. */
export async function rotateSecret(deps: Deps, clientId: string): Promise<string> {
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

/** Checks client credentials; 401 for an unknown client or a wrong secret. */
async function authenticateClient(
  store: Store,
  clientId: string,
  clientSecret: string,
  challenge?: string,
): Promise<AppRecord> {
  const app = await store.getApp(clientId);
  if (!app) throw new Unauthenticated('Unknown client', challenge);
  if (!digestsEqual(hashSecret(clientSecret), app.secretHash)) {
    throw new Unauthenticated('Invalid client secret', challenge);
  }
  return app;
}

/** An app as the JSON API shows it (never its secret hash). */
export function appView(app: AppRecord): components['schemas']['App'] {
  return { client_id: app.clientId, name: app.name, redirect_uris: app.redirectUris, created_at: app.createdAt };
}

/** The client credentials a token, revocation or introspection request may carry in its body. */
export interface ClientAuthParams {
  client_id?: string;
  client_secret?: string;
}

interface ClientCredentials {
  clientId: string;
  clientSecret: string;
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
  if (params.client_secret === undefined) throw new Unauthenticated('client_secret is required');
  return { clientId: params.client_id, clientSecret: params.client_secret, challenge: undefined };
}

/**
 * Authenticates the client of a token, revocation or introspection request (RFC 6749 2.3.1): body
 * credentials or HTTP Basic, not both; 401 for unknown clients and wrong secrets.
 */
export async function authenticateClientRequest(
  store: Store,
  params: ClientAuthParams,
  authorization: string | undefined,
): Promise<AppRecord> {
  const client = clientCredentials(params, authorization);
  return authenticateClient(store, client.clientId, client.clientSecret, client.challenge);
}
