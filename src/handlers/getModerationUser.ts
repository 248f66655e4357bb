/** Moderation (tag `moderation`, docs/moderation.md): over src/moderation/moderation.ts. */
import { getModerationUser as getOne } from '../moderation/moderation.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const getModerationUser: Handler<'getModerationUser'> = async (input, ctx, deps) => {
  const body: JsonBody<'getModerationUser', 200> = await getOne(deps, signedInUser(ctx), Number(input.path.id));
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
