/** Moderation (tag `moderation`, docs/moderation.md): over src/moderation/moderation.ts. */
import { closeReport as close } from '../moderation/moderation.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const closeReport: Handler<'closeReport'> = async (input, ctx, deps) => {
  const body: JsonBody<'closeReport', 200> = await close(deps, signedInUser(ctx), Number(input.path.reportId), input.body.outcome);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
