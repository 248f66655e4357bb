/**
 * Which security headers responses carry (helmet's options): every page is unframeable
 * (frame-ancestors 'none') and sends no referrer. A page can widen two CSP directives for its own
 * response: the play page frames its game's origin, and the consent page's form may end in a
 * redirect to the client's origin (Chromium applies form-action to the redirect too).
 * docs/decisions.md#security-headers. The middleware that sets them per route policy is the HTTP
 * shell's (src/http/security-headers.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HelmetOptions } from 'helmet';
import type Koa from 'koa';

interface PageSources {
  frameSrc?: string[];
  formAction?: string[];
}

const pageSources = new WeakMap<ServerResponse, PageSources>();

/** Allows this response's page to frame, or send its forms to, the given origins. */
export function allowPageSources(ctx: Koa.Context, sources: PageSources): void {
  pageSources.set(ctx.res, sources);
}

/** Whether this response's page widened its CSP (allowPageSources): its headers are then helmet's, run per response. */
export function widensPage(res: ServerResponse): boolean {
  return pageSources.has(res);
}

function directive(name: keyof PageSources, fallback: string) {
  return (_req: IncomingMessage, res: ServerResponse): string =>
    [fallback, ...(pageSources.get(res)?.[name] ?? [])].join(' ');
}

export function helmetOptions(crossOriginResources: boolean): HelmetOptions {
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
 * What JSON, image and script responses need (OWASP's REST guidance): nosniff, a CSP that allows
 * nothing and no framing, no referrer, HSTS, and a Cross-Origin-Resource-Policy. The document
 * headers of pages (a full CSP, COOP, Origin-Agent-Cluster, X-XSS-Protection, ...) mean nothing
 * there, and on the hot endpoints their bytes cost more than the database read.
 */
export function apiHelmetOptions(crossOriginResources: boolean): HelmetOptions {
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

