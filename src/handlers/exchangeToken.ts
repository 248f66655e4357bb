import { exchangeCode, type TokenParams } from '../oauth/token-exchange.js';
import type { Handler, JsonBody } from './types.js';

export const exchangeToken: Handler<'exchangeToken'> = async (input, ctx, deps) => {
  // RFC 6749 5.1: token responses, errors included, must not be cached.
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Pragma', 'no-cache');
  const body: JsonBody<'exchangeToken', 200> = await exchangeCode(
    deps,
    input.body,
    ctx.get('Authorization') || undefined,
  );
  ctx.body = body;
};
