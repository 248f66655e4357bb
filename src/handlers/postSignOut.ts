import { endSession } from '../sessions/session.js';
import type { Handler } from './types.js';
import { redirect } from './web.js';

export const postSignOut: Handler<'postSignOut'> = async (_input, ctx) => {
  endSession(ctx);
  redirect(ctx, '/', 303);
};
