import { endSession } from '../sessions/session.js';
import type { Handler } from './types.js';
import { redirect } from './web.js';

export const postSignOut: Handler = async (_c, ctx) => {
  endSession(ctx);
  redirect(ctx, '/', 303);
};
