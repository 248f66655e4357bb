/**
 * CORS for `x-cors: client` operations (the token, whois, revocation and OpenID UserInfo
 * endpoints; docs/decisions.md#cors): the browser apps this service calls public clients.
 *
 * - A preflight (OPTIONS with Origin and Access-Control-Request-Method) is answered for any
 *   origin: 204, the path's methods, `Authorization, Content-Type`, Max-Age 600, no credentials.
 *   Nothing of the app is known yet (a preflight carries no body and no Authorization header).
 * - An actual response gets `Access-Control-Allow-Origin: <origin>` when the request's Origin is
 *   an origin of the PUBLIC app involved (corsOriginAllowed: its http(s) redirect URIs and its
 *   owner's games). The handler names the app in `ctx.state.corsApp` once the client is
 *   authenticated; a Bearer operation's app is its token's (`ctx.state.bearer`), so an operation
 *   only has to declare `x-cors: client` and use the bearerAuth scheme.
 * - A 4xx error carries it for any origin: it holds no data and no cookie is involved, and a
 *   browser app can then show the reason instead of an opaque network error.
 * - `Vary: Origin` goes with every response to a request that had an Origin. A request without an
 *   Origin never reaches this layer: its response is byte for byte what it was before.
 *
 * Both are applied only to the operations whose policy is `client` (src/http/policy.ts), so
 * no path is named here.
 */
import cors from '@koa/cors';
import type Koa from 'koa';
import { corsOriginAllowed } from '../oauth/client-origins.js';
import type { Store } from '../store/types.js';
import type { Layer } from './body.js';
import { errorStatus } from './error-responses.js';
import { METHODS, type Api } from './operations.js';
import { policyOf } from './policy.js';

const PREFLIGHT_MAX_AGE_SECONDS = 600;
const ALLOWED_HEADERS = ['Authorization', 'Content-Type'];

const isClientError = (status: number): boolean => status >= 400 && status < 500;

/** The layer around an `x-cors: client` operation's request that carries an Origin header. */
export function clientCors(store: Store): Layer {
  return async (ctx, next) => {
    const origin = ctx.get('Origin');
    ctx.vary('Origin');
    try {
      await next();
    } catch (err) {
      if (isClientError(errorStatus(err))) ctx.set('Access-Control-Allow-Origin', origin);
      throw err;
    }
    if (isClientError(ctx.status) || (await allowed(store, ctx, origin))) ctx.set('Access-Control-Allow-Origin', origin);
  };
}

async function allowed(store: Store, ctx: Koa.Context, origin: string): Promise<boolean> {
  const clientId = ctx.state.corsApp ?? ctx.state.bearer?.token.clientId;
  if (clientId === undefined) return false;
  try {
    return await corsOriginAllowed(store, clientId, origin);
  } catch {
    // The operation already succeeded (a code may be redeemed): a failed lookup must not turn
    // its answer into an error. The browser then cannot read it, as for any other origin.
    return false;
  }
}

/**
 * The preflight answer for a path whose operations are `x-cors: client`, or undefined when none
 * is. The allowed methods are those operations' methods (HEAD with GET).
 */
export function clientPreflight(api: Api, path: string): Layer | undefined {
  const methods = METHODS.filter((method) => policyOf(api.router.matchOperation({ method, path, headers: {} }, false)).cors === 'client').map((m) =>
    m.toUpperCase(),
  );
  if (methods.length === 0) return undefined;
  if (methods.includes('GET')) methods.splice(methods.indexOf('GET') + 1, 0, 'HEAD');
  const key = methods.join(',');
  let layer = preflights.get(key);
  if (!layer) {
    layer = cors({
      origin: (ctx) => ctx.get('Origin'),
      allowMethods: methods,
      allowHeaders: ALLOWED_HEADERS,
      maxAge: PREFLIGHT_MAX_AGE_SECONDS,
      credentials: false,
    });
    preflights.set(key, layer);
  }
  return layer;
}

/** One preflight middleware per set of methods (a handful: the contract's operations fix them). */
const preflights = new Map<string, Layer>();
