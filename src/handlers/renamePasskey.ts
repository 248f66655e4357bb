/** Passkeys (docs/account.md#passkeys): over src/accounts/passkeys.ts. */
import { renamePasskey as rename } from '../accounts/passkeys.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const renamePasskey: Handler<'renamePasskey'> = async (input, ctx, deps) => {
  const body: JsonBody<'renamePasskey', 200> = await rename(deps.store, signedInUser(ctx).id, Number(input.path.passkeyId), input.body.name);
  ctx.body = body;
};
