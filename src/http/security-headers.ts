/**
 * The security headers (src/security/headers.ts decides which) set on every response by its
 * operation's route policy (src/http/policy.ts). Helmet's output is computed once at start, on
 * throwaway responses, instead of per request.
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import helmet, { type HelmetOptions } from 'helmet';
import type Koa from 'koa';
import koaHelmet from 'koa-helmet';
import { apiHelmetOptions, helmetOptions, widensPage } from '../security/headers.js';
import type { RoutePolicy } from './policy.js';

/** What a middleware run on a throwaway response set, as plain strings. */
function headersOf(res: ServerResponse): Record<string, string> {
  return Object.fromEntries(Object.entries(res.getHeaders()).map(([name, value]) => [name, String(value)]));
}

/**
 * The headers helmet sets on a response that widens nothing: the same for every such response,
 * so they are computed once, by helmet itself on a throwaway response, instead of per request
 * (building the CSP string was a measurable part of a users/info request:
 * docs/performance.md#security-headers-computed-once).
 */
function staticHelmetHeaders(options: HelmetOptions): Record<string, string> {
  const req = new IncomingMessage(new Socket());
  const res = new ServerResponse(req);
  let finished = false;
  helmet(options)(req, res, (err?: unknown) => {
    if (err) throw new Error('helmet failed on a throwaway response', { cause: err });
    finished = true;
  });
  if (!finished) throw new Error('helmet did not finish synchronously');
  return headersOf(res);
}

/**
 * Sets the headers after the route ran (errors included), so a handler's allowPageSources
 * applies to its own response. Which set a response gets is its operation's policy (src/http/policy.ts,
 * from the contract): pages (an HTML response declared) get helmet's document set, and a page that
 * sets a whole Content-Security-Policy of its own (the docs page: stricter, default-src 'none')
 * keeps it; `x-cors: public` operations (read from any origin) get the API set with a
 * cross-origin resource policy and `publicExtra` (the CORS headers, computed once by @koa/cors:
 * see staticCorsHeaders); everything else the API set.
 *
 * An API response gets one fixed list, set straight on the Node response: these are the hot
 * endpoints, and going through Koa's header helpers and the CORS middleware per request cost
 * a sixth of a users/info request (docs/performance.md#security-headers-computed-once).
 */
export function securityHeaders(policy: (ctx: Koa.Context) => RoutePolicy, publicExtra: Record<string, string> = {}): Koa.Middleware {
  const widenedPages = koaHelmet(helmetOptions(false));
  const pageHeaders = staticHelmetHeaders(helmetOptions(false));
  const apiHeaders = Object.entries(staticHelmetHeaders(apiHelmetOptions(false)));
  const publicHeaders = Object.entries({ ...publicExtra, ...staticHelmetHeaders(apiHelmetOptions(true)) });
  const done = async () => {};
  return async function setSecurityHeaders(ctx, next) {
    try {
      await next();
    } finally {
      const route = policy(ctx);
      if (route.page) {
        const own = ctx.response.get('Content-Security-Policy');
        if (widensPage(ctx.res)) await widenedPages(ctx, done);
        else ctx.set(pageHeaders);
        if (own) ctx.set('Content-Security-Policy', own);
      } else if (!ctx.res.headersSent) {
        for (const [name, value] of route.cors === 'public' ? publicHeaders : apiHeaders) ctx.res.setHeader(name, value);
      }
    }
  };
}

/**
 * The headers a CORS middleware sets on an actual (non-preflight) request when they do not
 * depend on the request (a fixed origin such as `*`, no credentials): computed once by running
 * the middleware itself on a throwaway GET. Preflights still go through the middleware.
 */
export async function staticCorsHeaders(koa: Koa, cors: Koa.Middleware): Promise<Record<string, string>> {
  const req = new IncomingMessage(new Socket());
  req.method = 'GET';
  req.url = '/';
  req.headers = { origin: 'https://example.com' };
  const res = new ServerResponse(req);
  const ctx = koa.createContext(req, res);
  let reached = false;
  await cors(ctx, async () => {
    reached = true;
  });
  if (!reached) throw new Error('the CORS middleware ended a simple GET');
  const headers = headersOf(res);
  // @koa/cors always adds `Vary: Origin`. With a fixed `*` the response does not vary by Origin
  // (Fetch standard, "CORS protocol and HTTP caches"), and the Vary would split a CDN's cache of
  // every picture by the embedding site's origin.
  if (headers['access-control-allow-origin'] === '*' && headers.vary === 'Origin') delete headers.vary;
  return headers;
}
