import { requireScope } from '../oauth/bearer.js';
import { toIdentity } from '../accounts/users.js';
import type { Handler, JsonBody } from '../http/handler.js';

export const getWhois: Handler<'getWhois'> = async (_input, ctx) => {
  const found = ctx.state.bearer;
  if (!found) throw new Error('getWhois runs only after the bearerAuth security handler');
  requireScope(found, 'userinfo');
  ctx.set('Cache-Control', 'no-store');
  const body: JsonBody<'getWhois', 200> = toIdentity(found.user, found.token.scopes);
  ctx.body = body;
};
