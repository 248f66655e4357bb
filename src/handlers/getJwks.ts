import type { Handler, JsonBody } from './types.js';

export const getJwks: Handler<'getJwks'> = async (_input, ctx, deps) => {
  ctx.set('Cache-Control', 'public, max-age=300');
  const body: JsonBody<'getJwks', 200> = await deps.keys.jwks();
  ctx.body = body;
};
