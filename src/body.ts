import type Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import { ApiError } from './errors.js';
import type { RoutePolicy } from './policy.js';

export const BODY_LIMIT = '16kb';

/**
 * Parses `a=1&b=2`. RFC 6749 3.2: a parameter sent more than once is an error, not an array
 * (docs/decisions.md#token-endpoint).
 */
export function parseForm(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    if (Object.hasOwn(out, key)) throw new ApiError(400, `Parameter ${key} is repeated`);
    out[key] = value;
  }
  return out;
}

/** Read from Node's lower-cased header object: this runs on every request, most of them GETs. */
function hasBody(ctx: Koa.Context): boolean {
  const { 'transfer-encoding': encoding, 'content-length': length } = ctx.req.headers;
  return (encoding !== undefined && encoding !== '') || Number(length || 0) > 0;
}

/**
 * JSON bodies become objects; URL-encoded forms become objects whatever the Content-Type says
 * (form, text/plain or none), because OAuth clients differ in what they send. Only operations
 * whose contract declares a request body have it read; multipart bodies are left to the
 * operations that declare them (their handlers stream the upload after the auth checks), and
 * anywhere else, like any other type, are a 415.
 */
export function bodyMiddleware(policy: (ctx: Koa.Context) => RoutePolicy): Koa.Middleware {
  const parse = bodyParser({
    enableTypes: ['json', 'text'],
    extendTypes: { text: ['application/x-www-form-urlencoded', 'text/*'] },
    jsonLimit: BODY_LIMIT,
    textLimit: BODY_LIMIT,
    strict: true,
    onerror: (err: Error & { status?: number }) => {
      if (err.status === 413) throw new ApiError(413, 'Request body is too large');
      if (err.status === 415) throw new ApiError(415, 'Unsupported request body charset');
      throw new ApiError(400, 'Request body is not valid JSON');
    },
  });
  return async function parseBody(ctx, next) {
    // A body sent to a route that takes none (a GET with a body, RFC 9110 9.3.1) has no meaning:
    // it is ignored, so it cannot turn a valid request into a parse error the route never declares.
    if (!hasBody(ctx)) return next();
    const route = policy(ctx);
    // An unknown route or method still gets its 404/405 (NO_ROUTE.body is false).
    if (!route.body) return next();
    if (ctx.request.type === '') {
      ctx.request.headers['content-type'] = 'text/plain';
    } else if (route.upload && ctx.request.is('multipart')) {
      return next();
    } else if (!ctx.request.is('json', 'urlencoded', 'text/*')) {
      throw new ApiError(415, `Unsupported Content-Type: ${ctx.request.type}`);
    }
    await parse(ctx, async () => {});
    const body: unknown = ctx.request.body;
    if (typeof body === 'string') ctx.request.body = parseForm(body);
    return next();
  };
}
