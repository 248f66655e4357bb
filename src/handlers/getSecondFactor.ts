/** The account's authenticator app and recovery codes (src/accounts/second-factor.ts). */
import { authenticatorAppStatus } from '../accounts/second-factor.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const getSecondFactor: Handler<'getSecondFactor'> = async (_input, ctx, deps) => {
  const { enabled, recoveryCodesLeft } = await authenticatorAppStatus(deps.store, signedInUser(ctx).id);
  const body: JsonBody<'getSecondFactor', 200> = { enabled, recovery_codes_left: recoveryCodesLeft };
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
