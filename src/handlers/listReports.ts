/** Moderation (tag `moderation`, docs/moderation.md): over src/moderation/moderation.ts. */
import { reportQueue } from '../moderation/moderation.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const listReports: Handler<'listReports'> = async (_input, ctx, deps) => {
  const body: JsonBody<'listReports', 200> = await reportQueue(deps, signedInUser(ctx));
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
