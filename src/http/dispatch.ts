/**
 * Runs a request through openapi-backend's own parts, in the order of its handleRequest: the
 * operation the router matched, the security handlers, the request validators openapi-backend
 * compiled from the contract (with the same coercion), then the handler registered for the
 * operationId. What it leaves out is handleRequest's request re-parsing: it normalises, clones and
 * parses the same request up to four times (cookies, query, headers, path parameters), which in
 * the running server cost more than the rest of a users/info request put together
 * (docs/performance.md#fast-dispatcher).
 *
 * The contract stays in charge: an operation whose parameters use a serialisation this does not
 * implement (content, style, explode) stops the start, as openapi-backend's strict mode does for a
 * contract the code does not follow; a missing handler is an error, never a silent pass.
 * Why: docs/decisions.md#fast-dispatcher.
 */
import type Koa from 'koa';
import type { Context as OpContext, Operation } from 'openapi-backend';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { Api } from './operations.js';
import type { AppDeps } from './handler.js';
import { templatePattern } from './routing.js';

export interface DispatchRequest {
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  /** Lower-case names, as Node gives them. */
  headers: Record<string, string | string[]>;
  body: unknown;
}

type AnyHandler = (c: OpContext, ctx: Koa.Context, deps: AppDeps) => unknown;

interface Route {
  operation: Operation;
  pattern: RegExp;
  pathNames: string[];
  arrayQuery: string[];
  validators: ValidateFunction[];
  /** The security schemes any of the operation's requirements names, each run once. */
  schemes: string[];
}

function compileRoute(api: Api, operation: Operation): Route {
  const parameters = (operation.parameters ?? []) as { name: string; in: string; content?: unknown; style?: string; explode?: boolean; schema?: { type?: string } }[];
  for (const p of parameters) {
    if (p.content !== undefined || p.style !== undefined || p.explode !== undefined) {
      throw new Error(`${operation.operationId}: parameter ${p.name} uses a serialisation src/http/dispatch.ts does not implement`);
    }
  }
  const pathNames = [...operation.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  return {
    operation,
    pattern: templatePattern(operation.path),
    pathNames,
    arrayQuery: parameters.filter((p) => p.in === 'query' && p.schema?.type === 'array').map((p) => p.name),
    validators: api.validator.getRequestValidatorsForOperation(operation.operationId!) ?? [],
    schemes: [...new Set((operation.security ?? []).flatMap((r) => Object.keys(r)))],
  };
}

function rejected(result: unknown): boolean {
  return !result || (typeof result === 'object' && Boolean((result as { error?: unknown }).error));
}

export function createDispatcher(api: Api) {
  const routes = new Map(api.router.getOperations().map((op) => [op, compileRoute(api, op)]));
  const handler = (name: string): AnyHandler => {
    const found = (api.handlers as Record<string, AnyHandler | undefined>)[name];
    if (!found) throw new Error(`no ${name} handler registered`);
    return found;
  };

  /** `matched`: the operation the caller already matched for this request, if any. */
  return async function dispatch(req: DispatchRequest, ctx: Koa.Context, deps: AppDeps, matched?: Operation): Promise<unknown> {
    const c = { api } as OpContext;
    const request = { method: req.method.toLowerCase(), path: req.path, query: req.query, headers: req.headers, cookies: {}, params: {}, requestBody: req.body };
    c.request = request;
    try {
      c.operation = matched ?? api.router.matchOperation(req, true);
    } catch (err) {
      const notAllowed = err instanceof Error && err.message.startsWith('405');
      return handler(notAllowed ? 'methodNotAllowed' : 'notFound')(c, ctx, deps);
    }
    const route = routes.get(c.operation)!;
    const params: Record<string, string> = {};
    if (route.pathNames.length > 0) {
      // The router ignores trailing slashes; so does parameter extraction.
      const match = route.pattern.exec(req.path.length > 1 ? req.path.replace(/\/+$/, '') : req.path);
      route.pathNames.forEach((name, i) => {
        params[name] = decodeURIComponent(match?.[i + 1] ?? '');
      });
    }
    request.params = params;

    if (route.schemes.length > 0) {
      const requirements = c.operation.security ?? [];
      const results: Record<string, unknown> = {};
      const check = async (scheme: string) => {
        const run = api.securityHandlers[scheme];
        try {
          results[scheme] = run ? await run(c, ctx, deps) : undefined;
        } catch (error) {
          results[scheme] = { error: error || new Error('security handler rejected') };
        }
      };
      if (route.schemes.length === 1) await check(route.schemes[0]!);
      else await Promise.all(route.schemes.map(check));
      const authorized = requirements.some((r) => Object.keys(r).every((scheme) => !rejected(results[scheme])));
      c.security = { ...results, authorized };
      if (!authorized) return handler('unauthorizedHandler')(c, ctx, deps);
    }

    // What openapi-backend's validator builds from a parsed request; its validators coerce in place.
    const query: Record<string, unknown> = { ...req.query };
    for (const name of route.arrayQuery) if (typeof query[name] === 'string') query[name] = [query[name]];
    const parameters: Record<string, unknown> = { path: { ...params }, query, header: req.headers, cookie: {} };
    const rawType = req.headers['content-type'];
    const contentType = rawType === undefined ? '' : String(rawType).split(';')[0]!.trim().toLowerCase();
    if (typeof req.body === 'object' || contentType === 'application/json') parameters.requestBody = req.body;
    const errors: ErrorObject[] = [];
    for (const validate of route.validators) {
      validate(parameters);
      if (validate.errors) errors.push(...validate.errors);
    }
    c.validation = { valid: errors.length === 0, errors: errors.length ? errors : null };
    if (errors.length) return handler('validationFail')(c, ctx, deps);
    request.query = parameters.query as typeof request.query;
    request.params = parameters.path as typeof request.params;
    return handler(c.operation.operationId!)(c, ctx, deps);
  };
}
