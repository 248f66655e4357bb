/**
 * TRUST_PROXY: behind a load balancer every connection comes from the proxy, so the client's own
 * address (which the sign-in and sign-up limits count by) and scheme (cookie Secure) are only in
 * X-Forwarded-For and X-Forwarded-Proto. Those headers are believed only from a trusted peer:
 * from anyone else they are dropped before Koa reads them, so a client cannot choose its address.
 */
import type Koa from 'koa';
import proxyaddr from 'proxy-addr';
import type { TrustProxy } from '../config.js';

const FORWARDED_HEADERS = ['x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host'] as const;

/** proxy-addr's trust function: by hop count (as Express does) or by address list. */
function trustFunction(trust: Exclude<TrustProxy, false>): (addr: string, hop: number) => boolean {
  if (typeof trust === 'number') return (_addr, hop) => hop < trust;
  return proxyaddr.compile(trust);
}

/**
 * Turns on Koa's proxy mode (X-Forwarded-Proto decides ctx.protocol, so ctx.secure and the
 * cookies' Secure flag) and returns the middleware that makes it safe: the client address is
 * proxy-addr's walk of X-Forwarded-For over trusted hops only (Koa's own ctx.ip would take the
 * left-most entry, which the client writes), and forwarded headers from an untrusted peer are
 * removed. Installed only when TRUST_PROXY is set: with it off Koa ignores the headers itself.
 */
export function trustedProxy(koa: Koa, trust: Exclude<TrustProxy, false>): Koa.Middleware {
  koa.proxy = true;
  const trusted = trustFunction(trust);
  return function forwardedFor(ctx, next) {
    const peer = ctx.req.socket.remoteAddress ?? '';
    if (trusted(peer, 0)) {
      ctx.request.ip = proxyaddr(ctx.req, trusted);
    } else {
      for (const name of FORWARDED_HEADERS) delete ctx.req.headers[name];
      ctx.request.ip = peer;
    }
    return next();
  };
}
