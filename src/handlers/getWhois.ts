import { authenticateBearer, requireScope } from '../oauth/bearer.js';
import { toIdentity } from '../users/users.js';
import type { Handler, JsonBody, SecurityHandler } from './types.js';

/**
 * Security handler of the bearerAuth scheme: resolves the token and its user, or throws
 * Unauthenticated (a 401 with a Bearer challenge).
 */
export const bearerAuth: SecurityHandler = async (_c, ctx, deps) => {
  const found = await authenticateBearer(deps.store, ctx.get('Authorization') || undefined, deps.now());
  ctx.state.bearer = found;
  return found;
};

export const getWhois: Handler<'getWhois'> = async (_input, ctx) => {
  const found = ctx.state.bearer;
  if (!found) throw new Error('getWhois runs only after the bearerAuth security handler');
  requireScope(found, 'userinfo');
  ctx.set('Cache-Control', 'no-store');
  const body: JsonBody<'getWhois', 200> = toIdentity(found.user, found.token.scopes);
  ctx.body = body;
};
