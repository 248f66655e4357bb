import { revokeAccessToken } from '../oauth/revocation.js';
import type { Handler } from '../http/handler.js';

export const revokeToken: Handler<'revokeToken'> = async (input, ctx, deps) => {
  ctx.set('Cache-Control', 'no-store');
  const result = await revokeAccessToken(deps, input.body, ctx.get('Authorization') || undefined);
  if (result.userId !== undefined) deps.audit('token_revoked', { userId: result.userId, clientId: result.clientId, by: 'client' });
  ctx.state.corsApp = result.clientId;
  // RFC 7009 2.2: 200 with no content (Koa would make an absent body a 204, and type '' as text).
  ctx.status = 200;
  ctx.body = '';
  ctx.remove('Content-Type');
};
