/** Passkeys (docs/account.md#passkeys): over src/accounts/passkeys.ts. */
import { removePasskey as remove } from '../accounts/passkeys.js';
import type { Handler } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';
import { currentSessionIdHash, passkeyConfirmedAt } from '../sessions/session.js';

export const removePasskey: Handler<'removePasskey'> = async (input, ctx, deps) => {
  const proof = { password: input.body?.password, passkeyConfirmedAt: passkeyConfirmedAt(ctx) };
  const user = signedInUser(ctx);
  await remove(deps, user, Number(input.path.passkeyId), proof, ctx.ip, currentSessionIdHash(ctx));
  ctx.status = 204;
};
