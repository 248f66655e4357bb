import { endSession } from '../sessions/session.js';
import type { Handler } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';
import { signOutEverywhere as signOut } from '../sessions/user-sessions.js';

export const signOutEverywhere: Handler<'signOutEverywhere'> = async (_input, ctx, deps) => {
  const userId = signedInUser(ctx).id;
  const ended = await signOut(deps, userId);
  endSession(ctx);
  deps.audit('sign_out', { userId, scope: 'everywhere', endedSessions: ended });
  ctx.status = 204;
};
