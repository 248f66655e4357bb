import { setFirstPassword as setFirst } from '../accounts/password-change.js';
import { sessionConfirmations } from '../sessions/session.js';
import type { Handler } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const setFirstPassword: Handler<'setFirstPassword'> = async (input, ctx, deps) => {
  const userId = signedInUser(ctx).id;
  await setFirst(deps, { userId, newPassword: input.body.new_password, proof: sessionConfirmations(ctx, userId) }, ctx.ip);
  ctx.status = 204;
};
