/** The account's authenticator app and recovery codes (src/accounts/second-factor.ts). */
import { replaceRecoveryCodes as replaceCodes, secondFactorDeps } from '../accounts/second-factor.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';
import { sessionConfirmations } from '../sessions/session.js';

export const replaceRecoveryCodes: Handler<'replaceRecoveryCodes'> = async (input, ctx, deps) => {
  const proof = { password: input.body?.password, ...sessionConfirmations(ctx, signedInUser(ctx).id) };
  const user = signedInUser(ctx);
  const recoveryCodes = await replaceCodes(secondFactorDeps(deps), user, proof, ctx.ip);
  const body: JsonBody<'replaceRecoveryCodes', 200> = { recovery_codes: recoveryCodes };
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
