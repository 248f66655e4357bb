/**
 * HTTP errors: ApiError for failures of the HTTP layer itself (routing, validation, body parsing),
 * the one map from the domain's errors (src/domain/errors.ts) to a status, headers and message, and
 * the one middleware that renders either as `{message}` or as an HTML page
 * (docs/decisions.md#errors).
 */
import type Koa from 'koa';
import type { Logger } from 'pino';
import { DomainError, Failure, type ErrorKind } from '../domain/errors.js';

/**
 * A failure of the HTTP layer (no route, invalid parameters, an unreadable body), answered as
 * `{message}` with `status`. Like the domain errors it captures no stack trace.
 */
export class ApiError extends Failure {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** The one map from a domain error's kind to its HTTP status. */
const HTTP_STATUS: Record<ErrorKind, number> = {
  invalid_input: 400,
  invalid_grant: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  rate_limited: 429,
  unavailable: 503,
  bad_gateway: 502,
};

/**
 * RFC 6749 5.2's error codes, which the OAuth endpoints' errors carry as `error` beside `message`
 * (`x-oauth-errors` in the contract; docs/interface.md#oauth-error-members).
 */
type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'temporarily_unavailable'
  | 'server_error';

/**
 * The one map from a domain error's kind to its OAuth error code. `unauthorized_client` is the
 * 403 of a client acting on another client's token; a database outage or a rate limit is
 * `temporarily_unavailable` (RFC 6749 4.1.2.1's code for a server that cannot answer now).
 */
const OAUTH_ERROR: Record<ErrorKind, OAuthErrorCode> = {
  invalid_input: 'invalid_request',
  invalid_grant: 'invalid_grant',
  unauthenticated: 'invalid_client',
  forbidden: 'unauthorized_client',
  not_found: 'invalid_request',
  conflict: 'invalid_request',
  too_large: 'invalid_request',
  rate_limited: 'temporarily_unavailable',
  unavailable: 'temporarily_unavailable',
  bad_gateway: 'server_error',
};

interface HttpError {
  status: number;
  message: string;
  headers: Record<string, string>;
}

/** The OAuth error code of a failure answered with `status` (a domain error may name its own). */
function oauthErrorOf(err: unknown, status: number): OAuthErrorCode {
  if (err instanceof DomainError) {
    const own = (err as { oauthError?: OAuthErrorCode }).oauthError;
    return own ?? OAUTH_ERROR[err.kind];
  }
  if (status === 401) return 'invalid_client';
  if (status >= 500) return status === 503 ? 'temporarily_unavailable' : 'server_error';
  return 'invalid_request';
}

/**
 * RFC 6749 5.2 allows only printable ASCII without `"` and `\` in error_description: the message,
 * with those characters replaced.
 */
export function errorDescription(message: string): string {
  return message.replace(/["\\]/g, "'").replace(/[^\x20-\x7e]/g, '?');
}

/** The HTTP answer for an expected failure; undefined for anything else (a bug: 500). */
export function httpErrorOf(err: unknown): HttpError | undefined {
  if (err instanceof ApiError) return { status: err.status, message: err.message, headers: err.headers };
  if (!(err instanceof DomainError)) return undefined;
  const headers: Record<string, string> = {};
  if ('challenge' in err && typeof err.challenge === 'string') headers['WWW-Authenticate'] = err.challenge;
  if ('retryAfterSeconds' in err) headers['Retry-After'] = String(err.retryAfterSeconds);
  return { status: HTTP_STATUS[err.kind], message: err.message, headers };
}

/** Messages for errors raised by Koa and its body parser, which carry only a status. */
const HTTP_MESSAGES: Record<number, string> = {
  400: 'Bad request',
  413: 'Request body is too large',
  415: 'Unsupported request body encoding',
};

/** Renders an error as an HTML page when the request was for one; undefined means JSON. */
export type HtmlErrorRenderer = (ctx: Koa.Context, status: number, message: string) => Promise<string | undefined>;

/** Whether the request's errors carry OAuth's `error` and `error_description` beside `message`. */
type OAuthErrorsOf = (ctx: Koa.Context) => boolean;

/** The status, message and headers an error is answered with: 500 for anything unexpected. */
function answerOf(err: unknown): HttpError {
  const expected = httpErrorOf(err);
  if (expected) return expected;
  if (isClientHttpError(err)) return { status: err.status, message: HTTP_MESSAGES[err.status] ?? err.message, headers: {} };
  return { status: 500, message: 'Internal server error', headers: {} };
}

/** The status errorMiddleware will answer this error with (for layers between it and the route). */
export function errorStatus(err: unknown): number {
  return answerOf(err).status;
}

export function errorMiddleware(logger: Logger, renderHtml?: HtmlErrorRenderer, oauthErrors?: OAuthErrorsOf): Koa.Middleware {
  return async function renderErrors(ctx, next) {
    try {
      await next();
    } catch (err) {
      const { status, message, headers } = answerOf(err);
      ctx.set(headers);
      if (status >= 500) {
        logger.error({ err, method: ctx.method, path: ctx.path }, 'request failed');
      }
      ctx.status = status;
      const page = renderHtml && (await renderHtml(ctx, status, message));
      if (page === undefined || page === '') {
        if (oauthErrors?.(ctx)) {
          // RFC 6749 5.1 and 5.2: token responses, errors included, are never cached.
          ctx.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' });
          ctx.body = { message, error: oauthErrorOf(err, status), error_description: errorDescription(message) };
        } else {
          ctx.body = { message };
        }
      } else {
        ctx.type = 'text/html; charset=utf-8';
        ctx.set('Cache-Control', 'no-store');
        ctx.body = page;
      }
    }
  };
}

function isClientHttpError(err: unknown): err is { status: number; message: string } {
  if (typeof err !== 'object' || err === null) return false;
  const { status, expose } = err as { status?: unknown; expose?: unknown };
  return typeof status === 'number' && status >= 400 && status < 500 && expose === true;
}
