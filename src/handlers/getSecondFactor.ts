/** The account's authenticator app and recovery codes (src/accounts/second-factor.ts). */
import { secondFactorStatus } from '../accounts/second-factor.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const getSecondFactor: Handler<'getSecondFactor'> = async (_input, ctx, deps) => {
  const body: JsonBody<'getSecondFactor', 200> = await secondFactorStatus(deps, signedInUser(ctx).id);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
