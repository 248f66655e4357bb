/**
 * Request adaptation: what the dispatcher is handed of a Koa request. The operation is matched
 * once per request; only the contract's declared query parameters and headers are passed on.
 */
import type Koa from 'koa';
import type { Operation } from 'openapi-backend';
import type { DispatchRequest } from './dispatch.js';
import type { Api } from './operations.js';

/** The operation of this request (HEAD routes as GET), matched once and kept on ctx.state. */
export function requestOperation(api: Api, ctx: Koa.Context): Operation | undefined {
  if (!('operation' in ctx.state)) {
    ctx.state.operation = api.router.matchOperation({ method: ctx.method === 'HEAD' ? 'GET' : ctx.method, path: ctx.path, headers: {} }, false);
  }
  return ctx.state.operation as Operation | undefined;
}

/** Whether a path decodes as percent-encoding (openapi-backend would throw a URIError otherwise). */
export function isWellEncoded(path: string): boolean {
  if (!path.includes('%')) return true;
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The dispatcher's view of a request for `api`'s operations. Headers: Content-Type (to validate
 * the body) and the contract's header parameters only; credentials (Authorization, the session
 * cookie, X-CSRF-Token) are read from ctx by the security handlers, so the rest is not copied and
 * parsed again on every request.
 */
export function requestAdapter(api: Api): (ctx: Koa.Context, operation: Operation | undefined) => DispatchRequest {
  const headerNames = contractHeaderNames(api);
  const queryNamesOf = new WeakMap<Operation, Set<string>>();

  /**
   * Only the query parameters the operation declares: unknown ones (cache busters, tracking tags)
   * are ignored, as RFC 6749 3.1 requires of the authorization endpoint, instead of failing a
   * valid request with an error the operation does not declare.
   */
  const declaredQuery = (operation: Operation | undefined, query: Record<string, string | string[]>) => {
    if (!operation) return query;
    let names = queryNamesOf.get(operation);
    if (!names) {
      names = new Set((operation.parameters ?? []).flatMap((p) => ('in' in p && p.in === 'query' ? [p.name] : [])));
      queryNamesOf.set(operation, names);
    }
    const declared: Record<string, string | string[]> = {};
    for (const name in query) if (names.has(name)) declared[name] = query[name]!;
    return declared;
  };

  return (ctx, operation) => ({
    // HEAD is GET without a body (Koa drops the body itself).
    method: ctx.method === 'HEAD' ? 'GET' : ctx.method,
    path: ctx.path,
    query: declaredQuery(operation, ctx.query as Record<string, string | string[]>),
    headers: pickHeaders(ctx.headers, headerNames),
    // A multipart body is streamed by its handler later; the validator sees an empty form
    // (openapi-backend does not check binary parts).
    body: ctx.request.body ?? (ctx.request.is('multipart/form-data') ? {} : undefined),
  });
}

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
