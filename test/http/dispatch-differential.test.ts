/**
 * src/http/dispatch.ts re-implements openapi-backend's handleRequest (and src/http/routing.ts its router)
 * for speed. This suite proves the two still agree: every request of the hostile corpus (generated
 * from openapi.yaml, test/hostile/corpus.ts) goes through openapi-backend's own handleRequest, on
 * an API with its own router, and through the fast dispatcher on the precompiled router, with the
 * same recording operation handlers and the same deterministic security handlers. The matched
 * operation, the validation verdict, the status and message of every refusal, and the validated
 * parameters a handler receives must be identical. An openapi-backend upgrade that changes any of
 * them fails here.
 */
import querystring from 'node:querystring';
import fc from 'fast-check';
import type Koa from 'koa';
import type { Context as OpContext } from 'openapi-backend';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApi, type Api, type RegisteredHandler } from '../../src/http/operations.js';
import { parseForm } from '../../src/http/body.js';
import { createDispatcher, type DispatchRequest } from '../../src/http/dispatch.js';
import { ApiError } from '../../src/http/error-responses.js';
import type { AppDeps } from '../../src/http/handler.js';
import { assertWithSeed, caseFor, DIFFERENTIAL_RUNS, operations, type Case } from '../hostile/corpus.js';
import { operationHandlers } from '../../src/handlers/index.js';

/** What became of one request. */
interface Outcome {
  status: number;
  operationId?: string;
  message?: string;
  headers?: Record<string, string>;
  params?: unknown;
  query?: unknown;
  body?: unknown;
}

const recorder =
  (operationId: string): RegisteredHandler =>
  (c: OpContext): Outcome => ({
    status: 200,
    operationId,
    params: c.request.params,
    query: c.request.query,
    body: c.request.requestBody,
  });

const VALID_TOKEN = `Bearer ${'A'.repeat(43)}`;
const header = (c: OpContext, name: string): string | undefined => {
  const value: unknown = (c.request.headers as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
};
/** Credentials judged from the request alone, so both paths get the same verdicts. */
const security: Record<string, RegisteredHandler> = {
  bearerAuth: async (c) => {
    if (header(c, 'authorization') !== VALID_TOKEN) throw new ApiError(401, 'Invalid access token');
    return true;
  },
  session: async (c) => {
    if (!(header(c, 'cookie') ?? '').includes('idp.sid=')) throw new ApiError(401, 'Sign in first');
    return true;
  },
  csrf: async (c) => {
    if (!header(c, 'x-csrf-token')) throw new ApiError(403, 'Invalid CSRF token');
    return true;
  },
};

let reference: Api;
let fast: ReturnType<typeof createDispatcher>;
let fastApi: Api;

beforeAll(async () => {
  reference = await createApi(operationHandlers, { operationHandler: recorder, securityHandlers: security, precompiledRouting: false });
  fastApi = await createApi(operationHandlers, { operationHandler: recorder, securityHandlers: security });
  fast = createDispatcher(fastApi);
});

async function outcomeOf(run: () => Promise<unknown>): Promise<Outcome> {
  try {
    return (await run()) as Outcome;
  } catch (err) {
    if (err instanceof ApiError) return { status: err.status, message: err.message, headers: err.headers };
    throw err;
  }
}

/**
 * The request as src/app.ts hands it to the dispatcher, or undefined when the app answers before
 * dispatching (a path that is not valid percent-encoding, a body its parser refuses).
 */
function dispatchRequest(c: Case): DispatchRequest | undefined {
  try {
    decodeURIComponent(c.path);
  } catch {
    return undefined;
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of c.headers) headers[name.toLowerCase()] = value;
  if (c.session !== 'none') headers.cookie = `idp.sid=x; idp.sid.sig=y${headers.cookie ? `; ${headers.cookie}` : ''}`;
  if (c.session === 'signed-in+csrf') headers['x-csrf-token'] = 'token';
  if (c.contentType !== undefined) headers['content-type'] = c.contentType;
  let body: unknown;
  if (c.body !== undefined && c.op.bodyTypes.length > 0) {
    const type = (c.contentType ?? '').split(';')[0]!.trim().toLowerCase();
    try {
      if (type === 'application/json') body = JSON.parse(c.body.toString('utf8'));
      else if (type.startsWith('multipart/')) body = {};
      else if (type === '' || type === 'application/x-www-form-urlencoded' || type.startsWith('text/')) body = parseForm(c.body.toString('utf8'));
      else return undefined;
    } catch {
      return undefined;
    }
  }
  const query = querystring.parse(c.query.map(([k, v]) => `${encodeURIComponent(k)}=${v}`).join('&')) as Record<string, string | string[]>;
  return { method: c.method === 'HEAD' ? 'GET' : c.method, path: c.path, query, headers, body };
}

const NO_DEPS = {} as AppDeps;

describe('the fast dispatcher agrees with openapi-backend handleRequest on the hostile corpus', () => {
  let compared = 0;

  for (const op of operations) {
    it(`${op.operationId} (${op.method} ${op.path})`, async () => {
      await assertWithSeed(
        fc.asyncProperty(caseFor(op), async (c) => {
          const req = dispatchRequest(c);
          if (!req) return;
          const clone = () => structuredClone(req);
          const expected = await outcomeOf(() => reference.handleRequest(clone(), {}, NO_DEPS));
          const actual = await outcomeOf(() => fast(clone(), {} as Koa.Context, NO_DEPS));
          compared += 1;
          expect(actual, `${c.method} ${c.path} ${JSON.stringify(req)}`).toEqual(expected);
        }),
        op.operationId,
        DIFFERENTIAL_RUNS,
      );
    });
  }

  it('compared most of the corpus (over 60 % of the cases reach the dispatcher)', () => {
    expect(compared).toBeGreaterThan(operations.length * DIFFERENTIAL_RUNS * 0.6);
  });
});
