/** Passkeys (docs/account.md#passkeys): over src/accounts/passkeys.ts. */
import { authenticationOptions } from '../accounts/passkeys.js';
import type { Handler } from '../http/handler.js';
import { putPasskeyChallenge } from '../sessions/session.js';

export const passkeySignInOptions: Handler<'passkeySignInOptions'> = async (_input, ctx, deps) => {
  const options = await authenticationOptions(deps);
  putPasskeyChallenge(ctx, 'sign_in', options.challenge, deps.now());
  ctx.set('Cache-Control', 'no-store');
  ctx.body = options;
};
