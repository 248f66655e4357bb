/** Passkeys (docs/account.md#passkeys): over src/accounts/passkeys.ts. */
import { removePasskey as remove } from '../accounts/passkeys.js';
import type { Handler } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';
import { currentSessionIdHash, sessionConfirmations } from '../sessions/session.js';

export const removePasskey: Handler<'removePasskey'> = async (input, ctx, deps) => {
  const proof = { password: input.body?.password, ...sessionConfirmations(ctx, signedInUser(ctx).id) };
  const user = signedInUser(ctx);
  await remove(deps, user, Number(input.path.passkeyId), proof, ctx.ip, currentSessionIdHash(ctx));
  ctx.status = 204;
};
