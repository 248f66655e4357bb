/** Moderation (tag `moderation`, docs/moderation.md): over src/moderation/moderation.ts. */
import { liftSuspension as lift } from '../moderation/moderation.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const liftSuspension: Handler<'liftSuspension'> = async (input, ctx, deps) => {
  const body: JsonBody<'liftSuspension', 200> = await lift(deps, signedInUser(ctx), Number(input.path.id));
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
