/** createApp: Koa, middleware and openapi-backend around injected dependencies. Never listens. */
import { PASSWORD_HASHING, RECOVERY_CODE_HASHING, type ScryptParams } from './accounts/passwords.js';
import cors from '@koa/cors';
import Koa from 'koa';
import type { Logger } from 'pino';
import { createApi, METHODS, notFoundMessage, type Api } from './http/operations.js';
import { CONTRACT_PATH } from './contract.js';
import { bodyMiddleware, type Layer } from './http/body.js';
import { createDispatcher } from './http/dispatch.js';
import type { Config } from './config.js';
import { createPublication } from './docs/published.js';
import { ApiError, errorMiddleware, type HtmlErrorRenderer } from './http/error-responses.js';
import { securityNotices } from './accounts/notices.js';
import { createAudit, type AuditListener } from './audit.js';
import { KeyRing } from './oauth/keys.js';
import { createMailer, type Mailer } from './mail/mailer.js';
import type { AppDeps } from './http/handler.js';
import type { Metrics } from './metrics/metrics.js';
import { browserCode } from './pages/browser-code.js';
import { errorPage, notFoundPage } from './pages/pages.js';
import type { PageUser } from './pages/html.js';
import { DefaultPictures } from './pictures/defaults.js';
import { picturesFor } from './pictures/pictures.js';
import { clientCors, clientPreflight } from './http/client-cors.js';
import { MAX_REQUEST_TARGET } from './http/client-errors.js';
import { noRoutePolicy, policyOf } from './http/policy.js';
import { securityHeaders, staticCorsHeaders } from './http/security-headers.js';
import { compileSerializers, serializeBody } from './http/serializers.js';
import { trustedProxy } from './security/proxy.js';
import { observeRequests } from './http/observability.js';
import { isWellEncoded, requestAdapter, requestOperation } from './http/request-input.js';
import { responseValidation } from './http/response-validation.js';
import { storeLimits, type LimitRule, type Limits } from './security/rate-limit.js';
import { existingCsrfToken } from './sessions/csrf.js';
import { readSession, sessionMiddleware } from './sessions/session.js';
import type { Store } from './store/types.js';
import { operationHandlers } from './handlers/index.js';

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
  /**
   * The cost new password hashes are made at (default PASSWORD_HASHING): tests whose subject is
   * not hashing inject a lower one, as they inject the clock.
   */
  passwordHashing?: ScryptParams;
  /** The cost new recovery codes are hashed at (default RECOVERY_CODE_HASHING), lowered by tests as passwordHashing is. */
  recoveryCodeHashing?: ScryptParams;
}

export interface App {
  koa: Koa;
  api: Api;
  deps: AppDeps;
}

/**
 * Who hears the audit events besides the log (src/audit.ts): the metrics count every event (code
 * replays and failed sign-ins have series of their own), and the security notices mail the owner
 * of an account whose way of signing in changed (src/accounts/notices.ts).
 */
function auditListeners(options: AppOptions, mailer: Mailer): AuditListener[] {
  const notices = securityNotices({ store: options.store, mailer, config: options.config });
  const metrics = options.metrics;
  return metrics ? [(event, fields) => metrics.auditEvent(event, fields), notices] : [notices];
}

export async function createApp(options: AppOptions): Promise<App> {
  const mailer = createMailer(options.config, options.logger);
  const deps: AppDeps = {
    config: options.config,
    store: options.store,
    logger: options.logger,
    now: options.now ?? Date.now,
    pictures: picturesFor(options.config, options.store, options.now ?? Date.now),
    defaults: new DefaultPictures(),
    publication: createPublication(CONTRACT_PATH, options.config.publicUrl),
    limits: storeLimits(options.store, options.limits, options.metrics && ((limit) => options.metrics!.rateLimited(limit))),
    audit: createAudit(options.logger, auditListeners(options, mailer)),
    metrics: options.metrics,
    mailer,
    keys: new KeyRing(options.store, options.config.sessionSecrets, options.now ?? Date.now, options.logger),
    readiness: { shuttingDown: false },
    passwordHashing: options.passwordHashing ?? PASSWORD_HASHING,
    recoveryCodeHashing: options.recoveryCodeHashing ?? RECOVERY_CODE_HASHING,
  };
  if (options.metrics) {
    const metrics = options.metrics;
    options.store.onDatabaseError((kind) => metrics.databaseError(kind));
  }
  // The pages' scripts and the game SDK are bundled with the contract's parsing: a script that does
  // not bundle stops the start here, not at its first request.
  const [api] = await Promise.all([createApi(operationHandlers), browserCode()]);
  const operationOf = (ctx: Koa.Context) => requestOperation(api, ctx);
  const koa = new Koa({ proxy: false });
  koa.silent = true;
  // Outermost, so it sees the final status of every request, errors included.
  const observe = observeRequests({ logger: deps.logger, metrics: deps.metrics, operationOf });
  if (observe) koa.use(observe);
  if (options.config.trustProxy !== false) koa.use(trustedProxy(koa, options.config.trustProxy));

  // Every per-route decision comes from the operation's contract entry (src/http/policy.ts).
  const policy = (ctx: Koa.Context) => {
    const operation = operationOf(ctx);
    return operation ? policyOf(operation) : noRoutePolicy(ctx);
  };
  const publicCors: Layer = cors({ origin: '*', allowMethods: ['GET', 'HEAD'], credentials: false });

  if (options.validateResponses) koa.use(responseValidation(api, deps.logger));
  koa.use(errorMiddleware(deps.logger, htmlErrors(api, deps), (ctx) => policy(ctx).oauthErrors));
  koa.use(securityHeaders(policy, await staticCorsHeaders(koa, publicCors)));

  const session: Layer = sessionMiddleware(koa, { store: deps.store, now: deps.now, secrets: options.config.sessionSecrets });
  const preflightIsPublic = publicPreflight(api);
  const corsForClients = clientCors(deps.store);
  const parseBody = bodyMiddleware(policy);
  const dispatchRequest = requestAdapter(api);
  const dispatch = createDispatcher(api);
  const serializers = compileSerializers(api);
  const route = async (ctx: Koa.Context): Promise<void> => {
    if (!isWellEncoded(ctx.path)) {
      // openapi-backend would throw a URIError decoding path parameters: no such resource.
      throw new ApiError(404, notFoundMessage(ctx.method, ctx.path, 'the path is not valid percent-encoding'));
    }
    const operation = operationOf(ctx);
    await dispatch(dispatchRequest(ctx, operation), ctx, deps, operation);
    serializeBody(serializers, operation, ctx);
  };
  const parseThenRoute = (ctx: Koa.Context) => parseBody(ctx, () => route(ctx));
  // The last layer: the session (for operations whose security names it) or the preflight answer
  // of a public or client operation, or the CORS layer of a client operation's cross-origin
  // request, then the body (for operations that declare one), then the operation.
  // One Koa layer instead of three, so what runs before an operation reads in one place (its
  // cost per request measured within the noise of the instruction counts).
  koa.use((ctx): Promise<void> => {
    // Node's parser lets through a request line up to its whole header allowance: a longer target
    // than the service serves is a 414 `{message}`, as it is beyond that allowance (client-errors.ts).
    if (ctx.url.length > MAX_REQUEST_TARGET) {
      ctx.status = 414;
      ctx.body = { message: 'Request URI is too long' };
      return Promise.resolve();
    }
    const routePolicy = policy(ctx);
    if (routePolicy.session) return session(ctx, () => parseThenRoute(ctx));
    // Public operations get their CORS headers on actual requests with the security headers
    // above; @koa/cors itself answers their preflights (an OPTIONS request matches no operation),
    // and those of client operations (src/http/client-cors.ts).
    if (ctx.method === 'OPTIONS') {
      if (preflightIsPublic(ctx.path)) return publicCors(ctx, () => parseThenRoute(ctx));
      const preflight = ctx.get('Origin') ? clientPreflight(api, ctx.path) : undefined;
      if (preflight) return preflight(ctx, () => parseThenRoute(ctx));
    }
    // Without an Origin header a client operation's response is exactly what it always was.
    if (routePolicy.cors === 'client' && ctx.get('Origin')) return corsForClients(ctx, () => parseThenRoute(ctx));
    return parseThenRoute(ctx);
  });
  return { koa, api, deps };
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
    // An unknown address answers a page or JSON by the Accept header: caches must keep both apart.
    if (!operation && (ctx.method === 'GET' || ctx.method === 'HEAD')) ctx.vary('Accept');
    if (!(operation ? policyOf(operation) : noRoutePolicy(ctx)).page) return undefined;
    let user: PageUser | undefined;
    let csrfToken = '';
    try {
      const id = readSession(ctx).userId;
      const record = id === undefined ? undefined : await deps.store.users.getUser(id);
      user = record && { id: record.id, name: record.name, modLevel: record.modLevel };
      csrfToken = existingCsrfToken(ctx);
    } catch {
      // The error may be the session store itself failing: show the page without the user.
    }
    if (!operation && status === 404) return notFoundPage({ user, csrfToken, path: ctx.path });
    return errorPage({ user, csrfToken, status, message });
  };
}




