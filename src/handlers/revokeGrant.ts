import { revokeGrant as revoke } from '../oauth/consent.js';
import type { Handler } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const revokeGrant: Handler<'revokeGrant'> = async (input, ctx, deps) => {
  await revoke(deps, signedInUser(ctx).id, input.path.clientId);
  ctx.status = 204;
};
