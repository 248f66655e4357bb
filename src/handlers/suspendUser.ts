/** Moderation (tag `moderation`, docs/moderation.md): over src/moderation/moderation.ts. */
import { suspendUser as suspend } from '../moderation/moderation.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const suspendUser: Handler<'suspendUser'> = async (input, ctx, deps) => {
  const body: JsonBody<'suspendUser', 200> = await suspend(deps, signedInUser(ctx), Number(input.path.id), input.body);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
