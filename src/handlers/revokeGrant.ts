import { revokeGrant as revoke } from '../oauth/grants.js';
import type { Handler } from './types.js';
import { signedInUser } from './web.js';

export const revokeGrant: Handler<'revokeGrant'> = async (input, ctx, deps) => {
  await revoke(deps, signedInUser(ctx).id, input.path.clientId);
  ctx.status = 204;
};
