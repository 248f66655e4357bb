/** Moderation (tag `moderation`, docs/moderation.md): over src/moderation/moderation.ts. */
import { setModLevel as setLevel } from '../moderation/moderation.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const setModLevel: Handler<'setModLevel'> = async (input, ctx, deps) => {
  const body: JsonBody<'setModLevel', 200> = await setLevel(deps, signedInUser(ctx), Number(input.path.id), input.body);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
