/** Passkeys (docs/account.md#passkeys): over src/accounts/passkeys.ts. */
import { registrationOptions } from '../accounts/passkeys.js';
import type { Handler } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';
import { sessionConfirmations, putPasskeyChallenge } from '../sessions/session.js';

export const passkeyRegistrationOptions: Handler<'passkeyRegistrationOptions'> = async (input, ctx, deps) => {
  const proof = { password: input.body?.password, ...sessionConfirmations(ctx, signedInUser(ctx).id) };
  const options = await registrationOptions(deps, signedInUser(ctx), proof, ctx.ip);
  putPasskeyChallenge(ctx, 'register', options.challenge, deps.now());
  ctx.set('Cache-Control', 'no-store');
  ctx.body = options;
};
