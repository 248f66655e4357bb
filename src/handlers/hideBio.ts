/** Moderation (tag `moderation`, docs/moderation.md): over src/moderation/moderation.ts. */
import { hideBio as hide } from '../moderation/moderation.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const hideBio: Handler<'hideBio'> = async (input, ctx, deps) => {
  const body: JsonBody<'hideBio', 200> = await hide(deps, signedInUser(ctx), Number(input.path.id), input.body);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
