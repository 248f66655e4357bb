import { ApiError } from '../http/error-responses.js';
import type { Handler, JsonBody } from './types.js';

export const getHealth: Handler<'getHealth'> = async (_input, ctx, deps) => {
  try {
    await deps.store.ping();
  } catch (err) {
    deps.logger.error({ err }, 'health check: database does not answer');
    throw new ApiError(503, 'Database unavailable');
  }
  const body: JsonBody<'getHealth', 200> = { status: 'ok' };
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
