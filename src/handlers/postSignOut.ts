import { endSession, readSession } from '../sessions/session.js';
import type { Handler } from './types.js';
import { redirect } from './web.js';

export const postSignOut: Handler<'postSignOut'> = async (_input, ctx, deps) => {
  const userId = readSession(ctx).userId;
  endSession(ctx);
  if (userId !== undefined) deps.audit('sign_out', { userId, ip: ctx.ip });
  redirect(ctx, '/', 303);
};
