/** The account's authenticator app and recovery codes (src/accounts/second-factor.ts). */
import { confirmTotpSetup as confirmSetup, secondFactorDeps } from '../accounts/second-factor.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';
import { currentSessionIdHash } from '../sessions/session.js';

export const confirmTotpSetup: Handler<'confirmTotpSetup'> = async (input, ctx, deps) => {
  const user = signedInUser(ctx);
  const { recoveryCodes, endedSessions } = await confirmSetup(secondFactorDeps(deps), user, input.body.code, ctx.ip, currentSessionIdHash(ctx));
  const body: JsonBody<'confirmTotpSetup', 200> = { recovery_codes: recoveryCodes, ended_sessions: endedSessions };
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
