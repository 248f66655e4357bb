/**
 * Security headers by helmet (koa-helmet). Every page is unframeable (frame-ancestors 'none') and
 * sends no referrer. A page can widen two CSP directives for its own response: the play page
 * frames its game's origin, and the consent page's form may end in a redirect to the client's
 * origin (Chromium applies form-action to the redirect too).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Koa from 'koa';
import helmet from 'koa-helmet';

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

function helmetFor(crossOriginResources: boolean): Koa.Middleware {
  return helmet({
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
  });
}

/**
 * Sets the headers after the route ran (errors included), so a handler's allowPageSources
 * applies to its own response. A handler that sets a whole Content-Security-Policy of its own
 * (the docs page: stricter, default-src 'none') keeps it. `publicPrefixes` are read from any
 * origin (pictures, users/info).
 */
export function securityHeaders(publicPrefixes: readonly string[]): Koa.Middleware {
  const pages = helmetFor(false);
  const shared = helmetFor(true);
  const done = async () => {};
  return async function setSecurityHeaders(ctx, next) {
    try {
      await next();
    } finally {
      const own = ctx.response.get('Content-Security-Policy');
      await (publicPrefixes.some((p) => ctx.path.startsWith(p)) ? shared : pages)(ctx, done);
      if (own) ctx.set('Content-Security-Policy', own);
    }
  };
}
