import { noticeSecurityChange } from '../accounts/notices.js';
import { changePassword as change } from '../accounts/password-change.js';
import { currentSessionIdHash } from '../sessions/session.js';
import type { Handler } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const changePassword: Handler<'changePassword'> = async (input, ctx, deps) => {
  const { currentPassword, newPassword } = input.body;
  const userId = signedInUser(ctx).id;
  await change(deps, { userId, currentPassword, newPassword, keepSessionIdHash: currentSessionIdHash(ctx) }, ctx.ip);
  noticeSecurityChange(deps, userId, 'password_changed');
  ctx.status = 204;
};
