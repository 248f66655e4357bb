import { toPublicUser, updateUser } from '../accounts/users.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const updateAccount: Handler<'updateAccount'> = async (input, ctx, deps) => {
  const change = input.body;
  // Only these two: flairs and modLevel are the operators' (docs/decisions.md#accounts-apps-and-games).
  const updated = await updateUser(deps.store, signedInUser(ctx).id, { bio: change.bio, equippedFlair: change.equippedFlair });
  const body: JsonBody<'updateAccount', 200> = { user: toPublicUser(updated) };
  ctx.body = body;
};
