/** Moderation (tag `moderation`, docs/moderation.md): over src/moderation/moderation.ts. */
import { removeGame as remove } from '../moderation/moderation.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const removeGame: Handler<'removeGame'> = async (input, ctx, deps) => {
  const body: JsonBody<'removeGame', 200> = await remove(deps, signedInUser(ctx), Number(input.path.gameId), input.body);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
