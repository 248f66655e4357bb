/** The account's authenticator app and recovery codes (src/accounts/second-factor.ts). */
import { secondFactorDeps, startTotpSetup as startSetup } from '../accounts/second-factor.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';
import { sessionConfirmations } from '../sessions/session.js';

export const startTotpSetup: Handler<'startTotpSetup'> = async (input, ctx, deps) => {
  const proof = { password: input.body?.password, ...sessionConfirmations(ctx, signedInUser(ctx).id) };
  const { uri, qrImage } = await startSetup(secondFactorDeps(deps), signedInUser(ctx), proof, ctx.ip);
  const body: JsonBody<'startTotpSetup', 200> = { uri, qr_image: qrImage };
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
