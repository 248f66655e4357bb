/** Passkeys (docs/account.md#passkeys): over src/accounts/passkeys.ts. */
import { reauthOptions } from '../accounts/passkeys.js';
import type { Handler } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';
import { putPasskeyChallenge } from '../sessions/session.js';

export const passkeyReauthOptions: Handler<'passkeyReauthOptions'> = async (_input, ctx, deps) => {
  const options = await reauthOptions(deps, signedInUser(ctx).id);
  putPasskeyChallenge(ctx, 'reauth', options.challenge, deps.now());
  ctx.set('Cache-Control', 'no-store');
  ctx.body = options;
};
