import type { Handler } from '../http/handler.js';
import { redirect } from '../http/pages.js';
import { signOutSession } from '../http/signed-in.js';

export const postSignOut: Handler<'postSignOut'> = async (_input, ctx, deps) => {
  signOutSession(ctx, deps);
  redirect(ctx, '/', 303);
};
