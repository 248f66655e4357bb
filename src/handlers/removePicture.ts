/** Moderation (tag `moderation`, docs/moderation.md): over src/moderation/moderation.ts. */
import { removePicture as removePic } from '../moderation/moderation.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const removePicture: Handler<'removePicture'> = async (input, ctx, deps) => {
  const body: JsonBody<'removePicture', 200> = await removePic(deps, signedInUser(ctx), Number(input.path.id), input.body);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
