/**
 * Security headers by helmet (koa-helmet). Every page is unframeable (frame-ancestors 'none') and
 * sends no referrer. A page can widen two CSP directives for its own response: the play page
 * frames its game's origin, and the consent page's form may end in a redirect to the client's
 * origin (Chromium applies form-action to the redirect too).
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import helmet, { type HelmetOptions } from 'helmet';
import type Koa from 'koa';
import koaHelmet from 'koa-helmet';

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

/**
 * The headers helmet sets on a response that widens nothing: the same for every such response,
 * so they are computed once, by helmet itself on a throwaway response, instead of per request
 * (building the CSP string was about 5% of a users/info request).
 */
export function staticHelmetHeaders(options: HelmetOptions): Record<string, string> {
  const req = new IncomingMessage(new Socket());
  const res = new ServerResponse(req);
  let finished = false;
  helmet(options)(req, res, (err?: unknown) => {
    if (err) throw err;
    finished = true;
  });
  if (!finished) throw new Error('helmet did not finish synchronously');
  return Object.fromEntries(Object.entries(res.getHeaders()).map(([name, value]) => [name, String(value)]));
}

/**
 * Sets the headers after the route ran (errors included), so a handler's allowPageSources
 * applies to its own response. A handler that sets a whole Content-Security-Policy of its own
 * (the docs page: stricter, default-src 'none') keeps it. `publicPrefixes` are read from any
 * origin (pictures, users/info).
 */
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
 * `isPage` tells which requests are HTML pages (decided by their operation, so an error page
 * rendered later by the error middleware is still a page).
 */
export function securityHeaders(publicPrefixes: readonly string[], isPage: (ctx: Koa.Context) => boolean): Koa.Middleware {
  const widenedPages = koaHelmet(helmetOptions(false));
  const pageHeaders = staticHelmetHeaders(helmetOptions(false));
  const apiHeaders = staticHelmetHeaders(apiHelmetOptions(false));
  const publicHeaders = staticHelmetHeaders(apiHelmetOptions(true));
  const done = async () => {};
  return async function setSecurityHeaders(ctx, next) {
    try {
      await next();
    } finally {
      const own = ctx.response.get('Content-Security-Policy');
      if (pageSources.has(ctx.res)) await widenedPages(ctx, done);
      else if (isPage(ctx)) ctx.set(pageHeaders);
      else ctx.set(publicPrefixes.some((p) => ctx.path.startsWith(p)) ? publicHeaders : apiHeaders);
      if (own) ctx.set('Content-Security-Policy', own);
    }
  };
}

export { apiHelmetOptions, helmetOptions };
