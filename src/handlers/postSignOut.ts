import type { Handler } from './types.js';
import { redirect, signOutSession } from './web.js';

export const postSignOut: Handler<'postSignOut'> = async (_input, ctx, deps) => {
  signOutSession(ctx, deps);
  redirect(ctx, '/', 303);
};
