import { endSession } from '../sessions/session.js';
import type { Handler } from './types.js';
import { signedInUser } from './web.js';

export const signOutEverywhere: Handler<'signOutEverywhere'> = async (_input, ctx, deps) => {
  const userId = signedInUser(ctx).id;
  const ended = await deps.store.deleteUserSessions(userId);
  endSession(ctx);
  deps.audit('sign_out', { userId, scope: 'everywhere', endedSessions: ended });
  ctx.status = 204;
};
