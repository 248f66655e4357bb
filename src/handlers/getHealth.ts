import { ApiError } from '../http/error-responses.js';
import type { Handler, JsonBody } from '../http/handler.js';

export const getHealth: Handler<'getHealth'> = async (_input, ctx, deps) => {
  ctx.set('Cache-Control', 'no-store');
  // After SIGTERM: not ready, so a load balancer takes this instance out before it stops.
  if (deps.readiness.shuttingDown) throw new ApiError(503, 'Shutting down');
  try {
    await deps.store.ping();
  } catch (err) {
    deps.logger.error({ err }, 'health check: database does not answer');
    throw new ApiError(503, 'Database unavailable');
  }
  const body: JsonBody<'getHealth', 200> = { status: 'ok' };
  ctx.body = body;
};
