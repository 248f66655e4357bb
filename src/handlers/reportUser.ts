/** Moderation (tag `moderation`, docs/moderation.md): over src/moderation/moderation.ts. */
import { reportUser as report } from '../moderation/moderation.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const reportUser: Handler<'reportUser'> = async (input, ctx, deps) => {
  const body: JsonBody<'reportUser', 201> = await report({ ...deps, limit: deps.limits.reportUser }, signedInUser(ctx), Number(input.path.id), input.body);
  ctx.status = 201;
  ctx.body = body;
};
