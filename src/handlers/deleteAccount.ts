import { deleteOwnAccount } from '../accounts/deletion.js';
import { endSession } from '../sessions/session.js';
import type { Handler } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const deleteAccount: Handler<'deleteAccount'> = async (input, ctx, deps) => {
  await deleteOwnAccount(deps, { userId: signedInUser(ctx).id, password: input.body.password, confirm: input.body.confirm }, ctx.ip);
  endSession(ctx);
  ctx.status = 204;
};
