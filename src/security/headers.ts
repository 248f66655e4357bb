/**
 * Security headers by helmet (koa-helmet). Every page is unframeable (frame-ancestors 'none') and
 * sends no referrer. A page can widen two CSP directives for its own response: the play page
 * frames its game's origin, and the consent page's form may end in a redirect to the client's
 * origin (Chromium applies form-action to the redirect too). docs/decisions.md#security-headers
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import helmet, { type HelmetOptions } from 'helmet';
import type Koa from 'koa';
import koaHelmet from 'koa-helmet';
import type { RoutePolicy } from '../http/policy.js';

interface PageSources {
  frameSrc?: string[];
  formAction?: string[];
}

const pageSources = new WeakMap<ServerResponse, PageSources>();

/** Allows this response's page to frame, or send its forms to, the given origins. */
export function allowPageSources(ctx: Koa.Context, sources: PageSources): void {
  pageSources.set(ctx.res, sources);
}

function directive(name: keyof PageSources, fallback: string) {
  return (_req: IncomingMessage, res: ServerResponse): string =>
    [fallback, ...(pageSources.get(res)?.[name] ?? [])].join(' ');
}

function helmetOptions(crossOriginResources: boolean): HelmetOptions {
  return {
    contentSecurityPolicy: {
      useDefaults: true,
      directives: {
        'default-src': ["'self'"],
        'script-src': ["'self'"],
        'style-src': ["'self'"],
        'img-src': ["'self'", 'data:'],
        'frame-ancestors': ["'none'"],
        'frame-src': [directive('frameSrc', "'self'")],
        'form-action': [directive('formAction', "'self'")],
        // Development runs on plain http://localhost; upgrading would break framed games there.
        'upgrade-insecure-requests': null,
      },
    },
    referrerPolicy: { policy: 'no-referrer' },
    // The legacy twin of frame-ancestors 'none', for browsers without CSP level 2.
    xFrameOptions: { action: 'deny' },
    crossOriginResourcePolicy: { policy: crossOriginResources ? 'cross-origin' : 'same-origin' },
  };
}

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
 * What JSON, image and script responses need (OWASP's REST guidance): nosniff, a CSP that allows
 * nothing and no framing, no referrer, HSTS, and a Cross-Origin-Resource-Policy. The document
 * headers of pages (a full CSP, COOP, Origin-Agent-Cluster, X-XSS-Protection, ...) mean nothing
 * there, and on the hot endpoints their bytes cost more than the database read.
 */
function apiHelmetOptions(crossOriginResources: boolean): HelmetOptions {
  return {
    contentSecurityPolicy: { useDefaults: false, directives: { 'default-src': ["'none'"], 'frame-ancestors': ["'none'"] } },
    crossOriginOpenerPolicy: false,
    crossOriginResourcePolicy: { policy: crossOriginResources ? 'cross-origin' : 'same-origin' },
    originAgentCluster: false,
    referrerPolicy: { policy: 'no-referrer' },
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xFrameOptions: false,
    xPermittedCrossDomainPolicies: false,
    xXssProtection: false,
  };
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
        if (pageSources.has(ctx.res)) await widenedPages(ctx, done);
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

export { apiHelmetOptions, helmetOptions };
