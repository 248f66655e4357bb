/** Passkeys (docs/account.md#passkeys): over src/accounts/passkeys.ts. */
import { verifyPasskeyConfirmation } from '../accounts/passkeys.js';
import type { Handler } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';
import { notePasskeyConfirmation, takePasskeyChallenge } from '../sessions/session.js';

export const reauthWithPasskey: Handler<'reauthWithPasskey'> = async (input, ctx, deps) => {
  const challenge = takePasskeyChallenge(ctx, 'confirm', deps.now());
  await verifyPasskeyConfirmation(deps, signedInUser(ctx).id, { response: input.body.credential, challenge }, ctx.ip);
  notePasskeyConfirmation(ctx, deps.now());
  ctx.status = 204;
};
