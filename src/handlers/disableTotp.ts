/** The account's authenticator app and recovery codes (src/accounts/second-factor.ts). */
import { disableTotp as disable, secondFactorDeps } from '../accounts/second-factor.js';
import type { Handler } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';
import { sessionConfirmations } from '../sessions/session.js';

export const disableTotp: Handler<'disableTotp'> = async (input, ctx, deps) => {
  const user = signedInUser(ctx);
  await disable(secondFactorDeps(deps), user, { password: input.body?.password, ...sessionConfirmations(ctx, signedInUser(ctx).id) }, ctx.ip);
  ctx.status = 204;
};
