import type Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import getRawBody from 'raw-body';
import { ApiError } from './error-responses.js';
import type { RoutePolicy } from './policy.js';

/**
 * Parses `a=1&b=2`. RFC 6749 3.1/3.2: a parameter the operation declares sent more than once is an
 * error, not an array; a parameter it does not declare is ignored, repeated or not
 * (docs/decisions.md#token-endpoint). Without `known`, every parameter counts as declared.
 */
export function parseForm(text: string, known?: ReadonlySet<string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    if (known && !known.has(key)) continue;
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
/** A Koa middleware whose `next` and result are typed (Koa's own type says `any` for both). */
export type Layer = (ctx: Koa.Context, next: () => Promise<void>) => Promise<void>;

export function bodyMiddleware(policy: (ctx: Koa.Context) => RoutePolicy): Layer {
  // One koa-bodyparser per body limit (a handful: the limits are derived per operation).
  const parsers = new Map<number, Layer>();
  const parserFor = (limit: number): Layer => {
    let parser = parsers.get(limit);
    if (!parser) {
      parser = bodyParser({
        enableTypes: ['json', 'text'],
        extendTypes: { text: ['application/x-www-form-urlencoded', 'text/*'] },
        jsonLimit: `${limit}b`,
        textLimit: `${limit}b`,
        strict: true,
        onerror: (err: Error & { status?: number }) => {
          throw readError(err, 'Request body is not valid JSON');
        },
      });
      parsers.set(limit, parser);
    }
    return parser;
  };
  return async function parseBody(ctx: Koa.Context, next: () => Promise<void>): Promise<void> {
    // A body sent to a route that takes none (a GET with a body, RFC 9110 9.3.1) has no meaning:
    // it is ignored, so it cannot turn a valid request into a parse error the route never declares.
    if (!hasBody(ctx)) return next();
    const route = policy(ctx);
    // An unknown route or method still gets its 404/405 (NO_ROUTE.body is false).
    if (!route.body) return next();
    let json = false;
    if (ctx.request.type === '') {
      ctx.request.headers['content-type'] = 'text/plain';
    } else if (route.upload && ctx.request.is('multipart')) {
      return next();
    } else {
      const type = ctx.request.is('json', 'urlencoded', 'text/*');
      if (!type) throw new ApiError(415, `Unsupported Content-Type: ${ctx.request.type}`);
      json = type === 'json';
    }
    if (!json && isPlainUtf8(ctx)) {
      ctx.request.body = parseForm(await readText(ctx, route.bodyLimit), route.fields);
      return next();
    }
    await parserFor(route.bodyLimit)(ctx, async () => {});
    const body: unknown = ctx.request.body;
    if (typeof body === 'string') ctx.request.body = parseForm(body, route.fields);
    return next();
  };
}

/** The HTTP error for a failed read (raw-body's errors carry the status). */
function readError(err: Error & { status?: number }, otherwise: string): ApiError {
  if (err.status === 413) return new ApiError(413, 'Request body is too large');
  if (err.status === 415) return new ApiError(415, 'Unsupported request body charset');
  return new ApiError(400, otherwise);
}

/**
 * A form or text body (the caller has ruled out JSON) sent as it is (no Content-Encoding) in UTF-8: what every OAuth client sends
 * to the token, introspection and revocation endpoints. It is read by raw-body directly, the reader
 * koa-bodyparser itself ends in, without the layers in between (option cloning, the decompression
 * wrapper, a second type check), which cost on every request and do nothing for these bodies
 * (docs/performance.md#introspection-and-revocation). Anything else (JSON,
 * compressed bodies, other charsets) goes through koa-bodyparser as before.
 */
function isPlainUtf8(ctx: Koa.Context): boolean {
  const encoding = ctx.req.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return false;
  const charset = ctx.request.charset.toLowerCase();
  return charset === '' || charset === 'utf-8' || charset === 'utf8';
}

/** The body as text, with the same limit and errors as koa-bodyparser's. */
async function readText(ctx: Koa.Context, limit: number): Promise<string> {
  try {
    return await getRawBody(ctx.req, { length: ctx.req.headers['content-length'], limit, encoding: 'utf-8' });
  } catch (err) {
    throw readError(err as Error & { status?: number }, 'Request body could not be read');
  }
}
