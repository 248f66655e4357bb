/** Passkeys (docs/account.md#passkeys): over src/accounts/passkeys.ts. */
import { addPasskey as add } from '../accounts/passkeys.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';
import { takePasskeyChallenge } from '../sessions/session.js';

export const addPasskey: Handler<'addPasskey'> = async (input, ctx, deps) => {
  const challenge = takePasskeyChallenge(ctx, 'register', deps.now());
  const userId = signedInUser(ctx).id;
  // The contract checks the answer's shape; the WebAuthn library checks the rest.
  const body: JsonBody<'addPasskey', 201> = await add(deps, userId, { response: input.body.credential, name: input.body.name, challenge }, ctx.ip);
  ctx.status = 201;
  ctx.body = body;
};
