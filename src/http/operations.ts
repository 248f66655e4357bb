/**
 * openapi-backend over openapi.yaml: routes by operationId, validates requests, and turns routing,
 * validation and security failures into ApiErrors. Handlers are registered from one typed map.
 */
import { OpenAPIBackend, type Context as OpContext, type Operation } from 'openapi-backend';
import type { ErrorObject } from 'ajv';
import { CONTRACT_PATH } from '../contract.js';
import { ApiError, httpErrorOf } from './error-responses.js';
import { handlerInput, type AppDeps, type Handler } from './handler.js';
import type { operations } from '../../generated/api.js';
import type Koa from 'koa';
import { precompileRouting } from './routing.js';
import { securityHandlers } from './security-schemes.js';
import { signedOutIfAccountGone } from './signed-in.js';

export const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

interface InvalidRequestRule {
  status: number;
  message: string;
}

/** Parameter-level `x-invalid-message`, operation-level `x-invalid-request`: contract-owned error texts. */
function contractRule(operation: Operation, errors: ErrorObject[]): InvalidRequestRule | undefined {
  const opRule = (operation as { 'x-invalid-request'?: InvalidRequestRule })['x-invalid-request'];
  if (opRule) return opRule;
  for (const err of errors) {
    const [, location, name] = err.instancePath.split('/');
    const paramName = err.keyword === 'required' && location !== 'requestBody'
      ? (err.params as { missingProperty?: string }).missingProperty
      : name;
    const paramIn = location === 'path' ? 'path' : location;
    const param = (operation.parameters ?? []).find(
      (p) => 'name' in p && p.name === paramName && (p.in === paramIn || (err.keyword === 'required' && err.instancePath === `/${p.in}`)),
    ) as { 'x-invalid-message'?: string } | undefined;
    if (param?.['x-invalid-message']) return { status: 400, message: param['x-invalid-message'] };
  }
  return undefined;
}

const LOCATION_NAMES: Record<string, string> = {
  query: 'Query parameter',
  path: 'Path parameter',
  header: 'Header',
  requestBody: 'Body field',
};

/** One readable sentence from the first validation error. */
function describeValidationError(err: ErrorObject): string {
  const parts = err.instancePath.split('/').filter(Boolean);
  const location = parts[0] ?? '';
  if (err.keyword === 'required') {
    const missing = (err.params as { missingProperty?: string }).missingProperty ?? '';
    if (location === '' && missing === 'requestBody') return 'Request body is required';
    if (location === '') return `${LOCATION_NAMES[missing] ?? missing} is required`;
    return `${LOCATION_NAMES[location] ?? location} ${parts.slice(1).concat(missing).join('.')} is required`;
  }
  if (err.keyword === 'additionalProperties') {
    const extra = (err.params as { additionalProperty?: string }).additionalProperty;
    return `${LOCATION_NAMES[location] ?? location} ${extra} is not allowed`;
  }
  const field = parts.slice(1).join('.');
  const subject = field ? `${LOCATION_NAMES[location] ?? location} ${field}` : (LOCATION_NAMES[location] ?? 'Request');
  return `${subject} ${err.message ?? 'is invalid'}`;
}

export type Api = OpenAPIBackend;

/** An operation's handler as openapi-backend calls it: its context, then the dispatcher's arguments. */
export type RegisteredHandler = (c: OpContext, ctx: Koa.Context, deps: AppDeps) => unknown;

interface ApiOptions {
  /**
   * Replaces every operation handler (security handlers too, when given): the differential test
   * registers recorders, so the same requests can go through openapi-backend's own handleRequest
   * and through src/http/dispatch.ts and their outcomes be compared.
   */
  operationHandler?: (operationId: string) => RegisteredHandler;
  securityHandlers?: Record<string, RegisteredHandler>;
  /** false keeps openapi-backend's own router (the differential test's reference); default true. */
  precompiledRouting?: boolean;
}

/**
 * The 404 message for a path no operation has (`why`: a reason to give instead of the route). An
 * address under the pictures' prefix answers as a missing picture, whatever is wrong with it.
 */
export function notFoundMessage(method: string, path: string, why?: string): string {
  if (path.startsWith('/pfp/')) return 'Profile picture not found';
  return why ? `No such resource: ${why}` : `No such route: ${method.toUpperCase()} ${path}`;
}

/** Whether every way to call the operation needs a signed-in user (it then declares 401). */
function requiresSession(operation: Operation): boolean {
  const requirements = operation.security ?? [];
  return requirements.length > 0 && requirements.every((r) => 'session' in r);
}

/** Each operation's handler, as src/handlers/index.ts lists them (the composition, src/app.ts, passes them in). */
type OperationHandlers = { [Op in keyof operations]: Handler<Op> };

/** The service's own API for a table of handlers, once init() has run: see createApi. */
const serviceApis = new WeakMap<OperationHandlers, Promise<Api>>();

/**
 * openapi-backend over the contract, with the service's handlers (or, for the differential test,
 * the ones `options` gives). The table comes from the caller, so this pipeline never imports the
 * handlers that import it. Without options the API is the same for every app of a process:
 * nothing in it belongs to one app, as each handler gets its app's deps with the call
 * (src/http/dispatch.ts), and it is not changed after init(). So it is built once per process:
 * a deployment runs one app per process, the test harness one per test file and more, and
 * compiling the operations' validators once is most of what a test server costs.
 */
export function createApi(operationHandlers: OperationHandlers, options: ApiOptions = {}): Promise<Api> {
  if (options.operationHandler || options.securityHandlers || options.precompiledRouting !== undefined) return buildApi(operationHandlers, options);
  let api = serviceApis.get(operationHandlers);
  if (!api) {
    api = buildApi(operationHandlers, {}).catch((err: unknown) => {
      serviceApis.delete(operationHandlers);
      throw err;
    });
    serviceApis.set(operationHandlers, api);
  }
  return api;
}

async function buildApi(operationHandlers: OperationHandlers, options: ApiOptions): Promise<Api> {
  const api = new OpenAPIBackend({
    definition: CONTRACT_PATH,
    strict: true,
    validate: true,
    coerceTypes: true,
    // Validators are compiled when first asked for, not all at init(): the dispatcher asks for
    // every operation's request validators as it is made (src/http/dispatch.ts), so a request
    // schema Ajv refuses still stops the start; the response validators only response validation
    // uses (tests, AppOptions.validateResponses) are compiled for the operations a test calls. This
    // took a process's first app from about 1.7 to 0.6 s. Quick mode also skips checking the
    // document against the OpenAPI schema: `npm run lint:contract` checks it where it is written.
    quick: true,
    // openapi-backend makes an Ajv per operation and context; each would compile JSON Schema's
    // meta-schema to check the contract's schemas again (2 s of a 3 s start, every instance and
    // every test server). Ajv's strict mode still refuses an unknown keyword when it compiles a schema.
    ajvOpts: { validateSchema: false },
  });

  // Handlers take their typed input (src/http/handler.ts), made here from the context the
  // dispatcher (or openapi-backend's own handleRequest) validated.
  const adapted = Object.fromEntries(
    Object.entries(operationHandlers).map(([operationId, handler]): [string, RegisteredHandler] => [
      operationId,
      options.operationHandler?.(operationId) ??
        ((c, ctx, deps) => {
          const done = (handler as (i: unknown, ctx: Koa.Context, deps: AppDeps) => Promise<void>)(handlerInput(c), ctx, deps);
          // Set by the `session` scheme: the account may be deleted while the operation runs.
          const user = ctx.state.user;
          if (!user) return done;
          return done.catch(async (err: unknown) => {
            if (requiresSession(c.operation)) return signedOutIfAccountGone(err, user.id, deps);
            throw err;
          });
        }),
    ]),
  );
  api.register({
    ...adapted,
    notFound: (c: OpContext) => {
      throw new ApiError(404, notFoundMessage(c.request.method, c.request.path));
    },
    methodNotAllowed: (c: OpContext) => {
      const allowed = METHODS.filter((method) => api.router.matchOperation({ ...c.request, method }, false));
      throw new ApiError(405, `Method ${c.request.method.toUpperCase()} is not allowed on ${c.request.path}`, {
        Allow: allowed.map((m) => m.toUpperCase()).join(', '),
      });
    },
    validationFail: (c: OpContext) => {
      const errors = c.validation.errors ?? [];
      const rule = contractRule(c.operation, errors);
      if (rule) throw new ApiError(rule.status, rule.message);
      const message = errors[0] ? describeValidationError(errors[0]) : 'Invalid request';
      // A path that no valid resource id fits names nothing: where the operation declares no 400
      // (the address is the whole request), that is a 404.
      if (errors[0]?.instancePath.startsWith('/path') && !Object.hasOwn(c.operation.responses ?? {}, '400')) {
        throw new ApiError(404, `No such resource: ${message}`);
      }
      throw new ApiError(400, message);
    },
    unauthorizedHandler: (c: OpContext) => {
      // The lowest status wins: "sign in first" (401) before "bad CSRF token" (403).
      const failures = Object.values(c.security ?? {})
        .map((r) => (typeof r === 'object' && r !== null && 'error' in r ? (r as { error: unknown }).error : undefined))
        .map((e) => ({ e, http: httpErrorOf(e) }))
        .filter((f) => f.http !== undefined)
        .sort((a, b) => a.http!.status - b.http!.status);
      if (failures[0]) throw failures[0].e;
      throw new ApiError(401, 'Authentication required');
    },
  });
  for (const [scheme, handler] of Object.entries(options.securityHandlers ?? securityHandlers)) api.registerSecurityHandler(scheme, handler);
  await api.init();
  if (options.precompiledRouting !== false) precompileRouting(api.router);
  return api;
}
