/** Passkeys (docs/account.md#passkeys): over src/accounts/passkeys.ts. */
import { passkeyConfirmationOptions } from '../accounts/passkeys.js';
import type { Handler } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';
import { putPasskeyChallenge } from '../sessions/session.js';

export const passkeyReauthOptions: Handler<'passkeyReauthOptions'> = async (_input, ctx, deps) => {
  const options = await passkeyConfirmationOptions(deps, signedInUser(ctx).id);
  putPasskeyChallenge(ctx, 'confirm', options.challenge, deps.now());
  ctx.set('Cache-Control', 'no-store');
  ctx.body = options;
};
