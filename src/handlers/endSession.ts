import { endSession as endThisSession, readSession } from '../sessions/session.js';
import { endUserSession } from '../sessions/user-sessions.js';
import type { Handler } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const endSession: Handler<'endSession'> = async (input, ctx, deps) => {
  const userId = signedInUser(ctx).id;
  const publicId = input.path.sessionId;
  // This browser's own session ends through koa-session, which would otherwise write it back.
  if (publicId === readSession(ctx).meta?.publicId) endThisSession(ctx);
  else await endUserSession(deps.store, userId, publicId);
  deps.audit('sign_out', { userId, scope: 'one' });
  ctx.status = 204;
};
