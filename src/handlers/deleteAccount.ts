import { deleteOwnAccount } from '../accounts/deletion.js';
import { endSession, sessionConfirmations } from '../sessions/session.js';
import type { Handler } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const deleteAccount: Handler<'deleteAccount'> = async (input, ctx, deps) => {
  const userId = signedInUser(ctx).id;
  const proof = { password: input.body.password, ...sessionConfirmations(ctx, userId) };
  await deleteOwnAccount(deps, { userId, proof, confirm: input.body.confirm }, ctx.ip);
  endSession(ctx);
  ctx.status = 204;
};
