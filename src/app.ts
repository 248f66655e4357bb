/** createApp: Koa, middleware and openapi-backend around injected dependencies. Never listens. */
import cors from '@koa/cors';
import Koa from 'koa';
import type { Logger } from 'pino';
import { CONTRACT_PATH, createApi, type Api } from './api.js';
import { bodyMiddleware } from './body.js';
import type { Config } from './config.js';
import { createPublication } from './docs/published.js';
import { ApiError, errorMiddleware } from './errors.js';
import type { AppDeps } from './handlers/index.js';
import { DefaultPictures } from './pictures/defaults.js';
import { PictureFiles } from './pictures/pictures.js';
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
}

export interface App {
  koa: Koa;
  api: Api;
  deps: AppDeps;
}

/** Browsers call these from any origin (games do); they carry no credentials. */
const PUBLIC_CORS_PREFIXES = ['/api/users/', '/pfp/'];

export async function createApp(options: AppOptions): Promise<App> {
  const deps: AppDeps = {
    config: options.config,
    store: options.store,
    logger: options.logger,
    now: options.now ?? Date.now,
    files: new PictureFiles(options.config.picturesDir),
    defaults: new DefaultPictures(),
    publication: createPublication(CONTRACT_PATH, options.config.publicUrl),
  };
  const api = await createApi();
  const koa = new Koa({ proxy: false });
  koa.silent = true;

  if (options.validateResponses) koa.use(responseValidation(api, deps.logger));
  koa.use(requestLog(deps.logger));
  koa.use(errorMiddleware(deps.logger));

  const publicCors = cors({ origin: '*', allowMethods: ['GET', 'HEAD'], credentials: false });
  koa.use((ctx, next) => (PUBLIC_CORS_PREFIXES.some((p) => ctx.path.startsWith(p)) ? publicCors(ctx, next) : next()));

  koa.use(bodyMiddleware());
  koa.use(async (ctx) => {
    await api.handleRequest(
      {
        // HEAD is GET without a body (Koa drops the body itself).
        method: ctx.method === 'HEAD' ? 'GET' : ctx.method,
        path: ctx.path,
        query: ctx.query as Record<string, string | string[]>,
        headers: ctx.headers as Record<string, string | string[]>,
        body: ctx.request.body,
      },
      ctx,
      deps,
    );
  });
  return { koa, api, deps };
}

function requestLog(logger: Logger): Koa.Middleware {
  return async function logRequest(ctx, next) {
    if (!logger.isLevelEnabled('info')) return next();
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
    const body: unknown = ctx.body;
    if (typeof body !== 'object' || body === null || Buffer.isBuffer(body)) return;
    const operation = api.router.matchOperation(
      { method: ctx.method === 'HEAD' ? 'GET' : ctx.method, path: ctx.path, headers: {} },
      false,
    );
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
