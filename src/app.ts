/** createApp: Koa, middleware and openapi-backend around injected dependencies. Never listens. */
import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import cors from '@koa/cors';
import Koa from 'koa';
import type { Operation } from 'openapi-backend';
import type { Logger } from 'pino';
import { createApi, METHODS, notFoundMessage, type Api } from './api.js';
import { CONTRACT_PATH } from './contract.js';
import { bodyMiddleware } from './body.js';
import { createDispatcher } from './dispatch.js';
import type { Config } from './config.js';
import { createPublication } from './docs/published.js';
import { ApiError, errorMiddleware, type HtmlErrorRenderer } from './errors.js';
import { createAudit } from './audit.js';
import { createMailer } from './mail/mailer.js';
import type { AppDeps } from './handlers/index.js';
import type { Metrics } from './metrics/metrics.js';
import { errorPage } from './pages/pages.js';
import { DefaultPictures } from './pictures/defaults.js';
import { PictureFiles } from './pictures/pictures.js';
import { policyOf } from './policy.js';
import { securityHeaders, staticCorsHeaders } from './security/headers.js';
import { compileSerializers, serializeBody } from './serializers.js';
import { trustedProxy } from './security/proxy.js';
import { storeLimits, type LimitRule, type Limits } from './security/rate-limit.js';
import { existingCsrfToken } from './sessions/csrf.js';
import { readSession, sessionMiddleware } from './sessions/session.js';
import type { Store } from './store/types.js';

export interface AppOptions {
  config: Config;
  store: Store;
  logger: Logger;
  now?: () => number;
  /**
   * Check every JSON response against the contract and turn a mismatch into a 500 (tests turn
   * this on, so a handler that drifts from openapi.yaml fails loudly).
   */
  validateResponses?: boolean;
  /** Rate-limit rules replacing the defaults (tests use small ones). */
  limits?: Partial<Record<keyof Limits, LimitRule>>;
  /** Prometheus metrics (METRICS_PORT); absent, nothing is measured and nothing costs. */
  metrics?: Metrics;
}

export interface App {
  koa: Koa;
  api: Api;
  deps: AppDeps;
}

export async function createApp(options: AppOptions): Promise<App> {
  const deps: AppDeps = {
    config: options.config,
    store: options.store,
    logger: options.logger,
    now: options.now ?? Date.now,
    files: new PictureFiles(options.config.picturesDir),
    defaults: new DefaultPictures(),
    publication: createPublication(CONTRACT_PATH, options.config.publicUrl),
    limits: storeLimits(options.store, options.limits, options.metrics && ((limit) => options.metrics!.rateLimited(limit))),
    audit: createAudit(options.logger, options.metrics),
    metrics: options.metrics,
    mailer: createMailer(options.config, options.logger),
  };
  if (options.metrics) {
    const metrics = options.metrics;
    options.store.onDatabaseError((kind) => metrics.databaseError(kind));
  }
  const api = await createApi();
  const operationOf = (ctx: Koa.Context) => requestOperation(api, ctx);
  const koa = new Koa({ proxy: false });
  koa.silent = true;
  // Outermost, so it sees the final status of every request, errors included.
  if (deps.metrics) koa.use(measureRequests(deps.metrics, operationOf));
  if (options.config.trustProxy !== false) koa.use(trustedProxy(koa, options.config.trustProxy));

  // Every per-route decision comes from the operation's contract entry (src/policy.ts).
  const policy = (ctx: Koa.Context) => policyOf(operationOf(ctx));
  const publicCors = cors({ origin: '*', allowMethods: ['GET', 'HEAD'], credentials: false });

  if (options.validateResponses) koa.use(responseValidation(api, deps.logger));
  // Not even a pass-through layer when request lines are not logged (production runs at warn).
  if (deps.logger.isLevelEnabled('info')) koa.use(requestLog(deps.logger));
  koa.use(errorMiddleware(deps.logger, htmlErrors(api, deps)));
  koa.use(securityHeaders(policy, await staticCorsHeaders(koa, publicCors)));

  const session = sessionMiddleware(koa, { store: deps.store, now: deps.now, secrets: options.config.sessionSecrets });
  const preflightIsPublic = publicPreflight(api);
  const parseBody = bodyMiddleware(policy);
  const validatedHeaders = contractHeaderNames(api);
  const dispatch = createDispatcher(api);
  const serializers = compileSerializers(api);
  const route = async (ctx: Koa.Context): Promise<void> => {
    if (!isWellEncoded(ctx.path)) {
      // openapi-backend would throw a URIError decoding path parameters: no such resource.
      throw new ApiError(404, notFoundMessage(ctx.method, ctx.path, 'the path is not valid percent-encoding'));
    }
    const operation = operationOf(ctx);
    await dispatch(
      {
        // HEAD is GET without a body (Koa drops the body itself).
        method: ctx.method === 'HEAD' ? 'GET' : ctx.method,
        path: ctx.path,
        query: declaredQuery(operation, ctx.query as Record<string, string | string[]>),
        headers: pickHeaders(ctx.headers, validatedHeaders),
        // A multipart body is streamed by its handler later; the validator sees an empty form
        // (openapi-backend does not check binary parts).
        body: ctx.request.body ?? (ctx.request.is('multipart/form-data') ? {} : undefined),
      },
      ctx,
      deps,
      operation,
    );
    serializeBody(serializers, operation, ctx);
  };
  const parseThenRoute = (ctx: Koa.Context) => parseBody(ctx, () => route(ctx));
  // The last layer: the session (for operations whose security names it) or the preflight answer
  // of a public operation, then the body (for operations that declare one), then the operation.
  // One Koa layer instead of three, so what runs before an operation reads in one place (its
  // cost per request measured within the noise of the instruction counts).
  koa.use((ctx) => {
    if (policy(ctx).session) return session(ctx, () => parseThenRoute(ctx));
    // Public operations get their CORS headers on actual requests with the security headers
    // above; @koa/cors itself answers their preflights (an OPTIONS request matches no operation).
    if (ctx.method === 'OPTIONS' && preflightIsPublic(ctx.path)) return publicCors(ctx, () => parseThenRoute(ctx));
    return parseThenRoute(ctx);
  });
  return { koa, api, deps };
}

/**
 * The headers openapi-backend needs: Content-Type (to validate the body) and the contract's header
 * parameters. Credentials (Authorization, the session cookie, X-CSRF-Token) are read from ctx by
 * the security handlers, so the rest is not copied and parsed again on every request.
 */
function contractHeaderNames(api: Api): string[] {
  const declared = api.router
    .getOperations()
    .flatMap((op) => op.parameters ?? [])
    .filter((p): p is { in: string; name: string } => 'in' in p && p.in === 'header')
    .map((p) => p.name.toLowerCase());
  return [...new Set(['content-type', ...declared])];
}

function pickHeaders(headers: Koa.Context['headers'], names: readonly string[]): Record<string, string | string[]> {
  const picked: Record<string, string | string[]> = {};
  for (const name of names) {
    const value = headers[name];
    if (value !== undefined) picked[name] = value;
  }
  return picked;
}

function isWellEncoded(path: string): boolean {
  if (!path.includes('%')) return true;
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

const CLIENT_ERRORS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request headers are too large'],
  HPE_URI_TOO_LONG: [414, 'Request URI is too long'],
};

/**
 * Requests Node's HTTP parser refuses before Koa sees them (bytes not allowed in a request line or
 * header, headers over 16 KB) are answered like every other error, as `{message}` JSON, instead of
 * Node's bare `400 Bad Request`.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || (err.code === 'ECONNRESET' && !socket.readable)) {
      socket.destroy();
      return;
    }
    const [status, message] = CLIENT_ERRORS[err.code ?? ''] ?? [400, 'Malformed HTTP request'];
    const body = JSON.stringify({ message });
    // A HEAD request gets the headers only (the request line is in the packet the parser refused).
    const head = (err as { rawPacket?: Buffer }).rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${head ? '' : body}`,
    );
  });
}

/**
 * Only the query parameters the operation declares: unknown ones (cache busters, tracking tags)
 * are ignored, as RFC 6749 3.1 requires of the authorization endpoint, instead of failing a valid
 * request with an error the operation does not declare.
 */
const queryNamesOf = new WeakMap<Operation, Set<string>>();

function declaredQuery(operation: Operation | undefined, query: Record<string, string | string[]>): Record<string, string | string[]> {
  if (!operation) return query;
  let names = queryNamesOf.get(operation);
  if (!names) {
    names = new Set((operation.parameters ?? []).flatMap((p) => ('in' in p && p.in === 'query' ? [p.name] : [])));
    queryNamesOf.set(operation, names);
  }
  const declared: Record<string, string | string[]> = {};
  for (const name in query) if (names.has(name)) declared[name] = query[name]!;
  return declared;
}

/** The operation of this request (HEAD routes as GET), matched once and kept on ctx.state. */
function requestOperation(api: Api, ctx: Koa.Context): Operation | undefined {
  if (!('operation' in ctx.state)) {
    ctx.state.operation = api.router.matchOperation({ method: ctx.method === 'HEAD' ? 'GET' : ctx.method, path: ctx.path, headers: {} }, false);
  }
  return ctx.state.operation as Operation | undefined;
}

/** Whether an OPTIONS request is a preflight for a path whose operations are `x-cors: public`. */
function publicPreflight(api: Api): (path: string) => boolean {
  return (path) =>
    METHODS.some((method) => policyOf(api.router.matchOperation({ method, path, headers: {} }, false)).cors === 'public');
}

/** Errors of HTML operations are error pages, with the signed-in user in the header when known. */
function htmlErrors(api: Api, deps: AppDeps): HtmlErrorRenderer {
  return async (ctx, status, message) => {
    const operation = requestOperation(api, ctx);
    if (!policyOf(operation).page) return undefined;
    let user: { id: number; name: string } | undefined;
    let csrfToken = '';
    try {
      const id = readSession(ctx).userId;
      const record = id === undefined ? undefined : await deps.store.getUser(id);
      user = record && { id: record.id, name: record.name };
      csrfToken = existingCsrfToken(ctx);
    } catch {
      // The error may be the session store itself failing: show the page without the user.
    }
    return errorPage({ user, csrfToken, status, message });
  };
}

function measureRequests(metrics: Metrics, operationOf: (ctx: Koa.Context) => Operation | undefined): Koa.Middleware {
  return async function measure(ctx, next) {
    const start = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      metrics.request(operationOf(ctx)?.operationId ?? 'unmatched', ctx.status, seconds);
    }
  };
}

function requestLog(logger: Logger): Koa.Middleware {
  return async function logRequest(ctx, next) {
    const start = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      // The path only: no query strings, headers or bodies, which may carry codes or secrets.
      logger.info({ method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 10) / 10 }, 'request');
    }
  };
}

function responseValidation(api: Api, logger: Logger): Koa.Middleware {
  return async function validateResponse(ctx, next) {
    await next();
    let body: unknown = ctx.body;
    // A JSON body arrives here already written by its serializer (src/serializers.ts): what is
    // checked is what the client gets.
    if (typeof body === 'string' && ctx.response.is('json')) body = JSON.parse(body);
    if (typeof body !== 'object' || body === null || Buffer.isBuffer(body)) return;
    // Any operation can meet a database outage: 503 {message} is declared once for all of them
    // (the contract's description and docs/operations.md), like an unexpected 500.
    if (ctx.status === 503) return;
    const operation = requestOperation(api, ctx);
    if (!operation) return;
    const declared = Object.keys(operation.responses ?? {});
    const result = declared.includes(String(ctx.status))
      ? api.validateResponse(body, operation, ctx.status)
      : { errors: [{ message: `status ${ctx.status} is not declared` }] };
    if (result.errors?.length) {
      logger.error({ operationId: operation.operationId, status: ctx.status, errors: result.errors, body }, 'response breaks the contract');
      ctx.status = 500;
      ctx.body = { message: `Response breaks the contract: ${JSON.stringify(result.errors)}` };
    }
  };
}

export { ApiError };
