/** Moderation (tag `moderation`, docs/moderation.md): over src/moderation/moderation.ts. */
import { findModerationUsers as find } from '../moderation/moderation.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const findModerationUsers: Handler<'findModerationUsers'> = async (input, ctx, deps) => {
  const body: JsonBody<'findModerationUsers', 200> = { users: await find(deps, signedInUser(ctx), input.query.q) };
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
