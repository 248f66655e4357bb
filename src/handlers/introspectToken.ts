import { introspectAccessToken } from '../oauth/revocation.js';
import type { Handler, JsonBody } from '../http/handler.js';

export const introspectToken: Handler<'introspectToken'> = async (input, ctx, deps) => {
  // RFC 7662 4: an answer about a token's state must not be served from a cache.
  ctx.set('Cache-Control', 'no-store');
  const body: JsonBody<'introspectToken', 200> = await introspectAccessToken(deps, input.body, ctx.get('Authorization') || undefined);
  ctx.body = body;
};
