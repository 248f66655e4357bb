/** Passkeys (docs/account.md#passkeys): over src/accounts/passkeys.ts. */
import { listPasskeys as list } from '../accounts/passkeys.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const listPasskeys: Handler<'listPasskeys'> = async (_input, ctx, deps) => {
  const body: JsonBody<'listPasskeys', 200> = { passkeys: await list(deps.store, signedInUser(ctx).id) };
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
