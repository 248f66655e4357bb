import { revokeAccessToken } from '../oauth/revocation.js';
import type { Handler } from './types.js';

export const revokeToken: Handler<'revokeToken'> = async (input, ctx, deps) => {
  ctx.set('Cache-Control', 'no-store');
  const result = await revokeAccessToken(deps, input.body, ctx.get('Authorization') || undefined);
  if (result.userId !== undefined) deps.audit('token_revoked', { client_id: result.clientId, user_id: result.userId, by: 'client' });
  ctx.status = 200;
  ctx.body = '';
};
