import type { Handler, JsonBody } from '../http/handler.js';

export const getJwks: Handler<'getJwks'> = async (_input, ctx, deps) => {
  // Revalidated on every use: a browser app that cached the set before a rotation must see the
  // new key when it fetches again for an unknown kid (a max-age would answer from its cache).
  ctx.set('Cache-Control', 'public, no-cache');
  const body: JsonBody<'getJwks', 200> = await deps.keys.jwks();
  ctx.body = body;
};
