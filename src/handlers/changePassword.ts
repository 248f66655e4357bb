import { changePassword as change } from '../accounts/password-change.js';
import { currentSessionIdHash } from '../sessions/session.js';
import type { Handler } from './types.js';
import { signedInUser } from './web.js';

export const changePassword: Handler<'changePassword'> = async (input, ctx, deps) => {
  const { currentPassword, newPassword } = input.body;
  await change(deps, { userId: signedInUser(ctx).id, currentPassword, newPassword, keepSessionIdHash: currentSessionIdHash(ctx) }, ctx.ip);
  ctx.status = 204;
};
