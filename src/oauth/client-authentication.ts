/**
 * Client authentication at the token, revocation, introspection and device authorization
 * endpoints (RFC 6749 2.3): HTTP Basic or body credentials, and public apps that identify
 * themselves by client_id alone (docs/oauth.md#public-clients).
 */
import type { AppRecord } from '../domain/apps.js';
import { InvalidInput, Unauthenticated } from '../domain/errors.js';
import { digestsEqual, hashSecret } from '../security/secrets.js';

/** The refusals of public clients (docs/oauth.md#public-clients). */
export const PUBLIC_APP_HAS_NO_SECRET = 'A public app has no client secret';
const PUBLIC_APP_NO_INTROSPECTION = 'A public app cannot use introspection: it has no secret';

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
