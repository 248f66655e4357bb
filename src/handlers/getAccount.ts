import { bioRemovalView } from '../moderation/moderation.js';
import { toPublicUser } from '../accounts/users.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const getAccount: Handler<'getAccount'> = async (_input, ctx) => {
  const user = signedInUser(ctx);
  const body: JsonBody<'getAccount', 200> = { user: toPublicUser(user), email: user.email };
  // Shown until the user writes a new bio (docs/moderation.md#actions).
  const removal = bioRemovalView(user);
  if (removal) body.bio_removed = removal;
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
