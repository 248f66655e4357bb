/** Moderation (tag `moderation`, docs/moderation.md): over src/moderation/moderation.ts. */
import { listModerationActions as listActions } from '../moderation/moderation.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const listModerationActions: Handler<'listModerationActions'> = async (input, ctx, deps) => {
  const actions = await listActions(deps, signedInUser(ctx), { targetId: input.query.target === undefined ? undefined : Number(input.query.target), limit: input.query.limit });
  const body: JsonBody<'listModerationActions', 200> = { actions };
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
