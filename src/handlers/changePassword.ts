import { changePassword as change } from '../accounts/password-change.js';
import { currentSessionIdHash } from '../sessions/session.js';
import type { Handler } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const changePassword: Handler<'changePassword'> = async (input, ctx, deps) => {
  const { current_password: currentPassword, new_password: newPassword } = input.body;
  const userId = signedInUser(ctx).id;
  await change(deps, { userId, currentPassword, newPassword, keepSessionIdHash: currentSessionIdHash(ctx) }, ctx.ip);
  ctx.status = 204;
};
