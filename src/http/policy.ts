/**
 * What the service does around an operation, read from its contract entry alone, so a new
 * operation gets its behaviour by being declared in openapi.yaml
 * (docs/decisions.md#the-contract-drives-the-routes):
 *
 * | policy  | from the contract                                                                 |
 * |---------|-----------------------------------------------------------------------------------|
 * | cors    | `x-cors: public`: any origin may read it (no credentials); `x-cors: client`: the  |
 * |         | origins of the public app involved may read it, any origin its 4xx errors         |
 * |         | (src/http/client-cors.ts); otherwise no CORS                                      |
 * | session | its `security` names the `session` or `csrf` scheme (in any alternative; the CSRF |
 * |         | token is made from a secret kept in the session): the session cookie is read      |
 * | upload  | its request body may be `multipart/form-data`: streamed by the handler            |
 * | body    | it declares a request body at all: anything else has its body ignored             |
 * | bodyLimit | the largest body its schema allows (src/http/body-limits.ts), at least 16 KiB   |
 * | fields  | the body fields it declares: a form's other parameters are ignored (RFC 6749 3.2) |
 * | page    | a response is `text/html`: HTML error pages and the pages' header set             |
 * | oauthErrors | `x-oauth-errors: true`: errors carry RFC 6749 5.2's `error` and              |
 * |         | `error_description` beside `message` (the token, revocation, introspection ends)  |
 *
 * Computed once per operation (the answers are asked on every request).
 */
import type { Operation } from 'openapi-backend';
import { BODY_LIMIT_FLOOR, bodyFieldsOf, bodyLimitOf } from './body-limits.js';

export interface RoutePolicy {
  cors: 'public' | 'client' | 'none';
  session: boolean;
  upload: boolean;
  body: boolean;
  bodyLimit: number;
  fields: ReadonlySet<string> | undefined;
  page: boolean;
  oauthErrors: boolean;
}

/** What a request no operation matches gets: the API defaults, no session, no body read. */
const NO_ROUTE: RoutePolicy = Object.freeze({ cors: 'none', session: false, upload: false, body: false, bodyLimit: BODY_LIMIT_FLOOR, fields: undefined, page: false, oauthErrors: false });

/**
 * What a browser's GET for an address no operation has gets: the HTML 404 page, with the session
 * read so its header shows who is signed in (see missingPage).
 */
const MISSING_PAGE: RoutePolicy = Object.freeze({ cors: 'none', session: true, upload: false, body: false, bodyLimit: BODY_LIMIT_FLOOR, fields: undefined, page: true, oauthErrors: false });

/** Addresses for programs: an unknown one answers `{message}` whatever the request accepts. */
const PROGRAM_PREFIXES = ['/api/', '/.well-known/', '/pfp/', '/sdk/', '/assets/', '/docs/', '/openapi.'];

/**
 * Whether a request no operation matches is a person's browser asking for a page: a GET (or
 * HEAD) that prefers HTML to JSON, outside the programs' addresses. It gets an HTML 404 page;
 * everything else keeps `{"message":"No such route: ..."}`.
 */
function isMissingPage(method: string, path: string, preferred: string | false): boolean {
  return (method === 'GET' || method === 'HEAD') && preferred === 'html' && !PROGRAM_PREFIXES.some((prefix) => path.startsWith(prefix));
}

/** The policy of a request no operation matches: the HTML 404 page's for a browser, else NO_ROUTE's. */
export function noRoutePolicy(ctx: { method: string; path: string; accepts(...types: string[]): string | false }): RoutePolicy {
  return isMissingPage(ctx.method, ctx.path, ctx.accepts('json', 'html')) ? MISSING_PAGE : NO_ROUTE;
}

const SESSION_SCHEMES = new Set(['session', 'csrf']);

type MediaMap = Record<string, unknown> | undefined;

function mediaTypes(content: MediaMap): string[] {
  return content ? Object.keys(content) : [];
}

function compile(operation: Operation): RoutePolicy {
  const cors = (operation as { 'x-cors'?: unknown })['x-cors'];
  if (cors !== undefined && cors !== 'public' && cors !== 'client') {
    throw new Error(`${operation.operationId}: x-cors must be "public" or "client" when present, got ${JSON.stringify(cors)}`);
  }
  const oauthErrors = (operation as { 'x-oauth-errors'?: unknown })['x-oauth-errors'];
  if (oauthErrors !== undefined && oauthErrors !== true) {
    throw new Error(`${operation.operationId}: x-oauth-errors must be true when present, got ${JSON.stringify(oauthErrors)}`);
  }
  const session = (operation.security ?? []).some((requirement) => Object.keys(requirement).some((s) => SESSION_SCHEMES.has(s)));
  if (cors === 'client' && session) {
    // Cross-origin reads never carry credentials: a cookie-authenticated operation cannot be one.
    throw new Error(`${operation.operationId}: x-cors: client cannot be combined with the session or csrf scheme`);
  }
  const body = operation.requestBody as { content?: MediaMap } | undefined;
  const responses = Object.values(operation.responses ?? {}) as { content?: MediaMap }[];
  return {
    cors: cors === 'public' || cors === 'client' ? cors : 'none',
    session,
    upload: mediaTypes(body?.content).includes('multipart/form-data'),
    body: body !== undefined,
    bodyLimit: bodyLimitOf(body?.content as Parameters<typeof bodyLimitOf>[0]),
    fields: bodyFieldsOf(body?.content as Parameters<typeof bodyFieldsOf>[0]),
    page: responses.some((r) => mediaTypes(r.content).includes('text/html')),
    oauthErrors: oauthErrors === true,
  };
}

const policies = new WeakMap<Operation, RoutePolicy>();

export function policyOf(operation: Operation | undefined): RoutePolicy {
  if (!operation) return NO_ROUTE;
  let policy = policies.get(operation);
  if (!policy) {
    policy = compile(operation);
    policies.set(operation, policy);
  }
  return policy;
}
