/** One error type for every expected failure, and the one middleware that renders it as {message}. */
import type Koa from 'koa';
import type { Logger } from 'pino';

/**
 * An expected failure, answered as `{message}` with `status`. It carries no stack trace: it is an
 * answer, not a bug, and capturing one was the largest cost of a 404 on the hot endpoints.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.status = status;
    this.headers = headers;
    this.name = 'ApiError';
  }
}

/** Messages for errors raised by Koa and its body parser, which carry only a status. */
const HTTP_MESSAGES: Record<number, string> = {
  400: 'Bad request',
  413: 'Request body is too large',
  415: 'Unsupported request body encoding',
};

/** Renders an error as an HTML page when the request was for one; undefined means JSON. */
export type HtmlErrorRenderer = (ctx: Koa.Context, status: number, message: string) => Promise<string | undefined>;

export function errorMiddleware(logger: Logger, renderHtml?: HtmlErrorRenderer): Koa.Middleware {
  return async function renderErrors(ctx, next) {
    try {
      await next();
    } catch (err) {
      let status = 500;
      let message = 'Internal server error';
      if (err instanceof ApiError) {
        status = err.status;
        message = err.message;
        ctx.set(err.headers);
      } else if (isClientHttpError(err)) {
        status = err.status;
        message = HTTP_MESSAGES[status] ?? err.message;
      }
      if (status >= 500) {
        logger.error({ err, method: ctx.method, path: ctx.path }, 'request failed');
      }
      ctx.status = status;
      const page = renderHtml && (await renderHtml(ctx, status, message));
      if (page === undefined || page === '') {
        ctx.body = { message };
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
