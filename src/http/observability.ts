/**
 * What a request leaves behind: its request-log line (at info level) and its Prometheus
 * observation (with METRICS_PORT), both from one timer around everything else, errors included.
 */
import type Koa from 'koa';
import type { Operation } from 'openapi-backend';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics/metrics.js';

interface ObservabilityOptions {
  logger: Logger;
  metrics: Metrics | undefined;
  operationOf: (ctx: Koa.Context) => Operation | undefined;
}

/** undefined when there is nothing to record: not even a pass-through layer then. */
export function observeRequests({ logger, metrics, operationOf }: ObservabilityOptions): Koa.Middleware | undefined {
  // Production runs at warn: request lines are then not logged.
  const log = logger.isLevelEnabled('info');
  if (!log && !metrics) return undefined;
  return async function observe(ctx, next) {
    const start = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      metrics?.request(operationOf(ctx)?.operationId ?? 'unmatched', ctx.status, seconds);
      // The path only: no query strings, headers or bodies, which may carry codes or secrets.
      if (log) logger.info({ method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(seconds * 1e4) / 10 }, 'request');
    }
  };
}
