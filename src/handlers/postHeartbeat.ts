import { heartbeat } from '../accounts/accounts.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const postHeartbeat: Handler<'postHeartbeat'> = async (_input, ctx, deps) => {
  const { addedMinutes, user } = await heartbeat(deps, signedInUser(ctx).id);
  const body: JsonBody<'postHeartbeat', 200> = { addedMinutes, playMinutes: user.playMinutes, lastHeartbeat: user.lastHeartbeat };
  ctx.body = body;
};
