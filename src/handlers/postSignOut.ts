import type { Handler } from '../http/handler.js';
import { redirectBack } from '../http/pages.js';
import { signOutSession } from '../http/signed-in.js';

/** Signs out, then to `return_to` (a path here: the consent page's "Not you?" goes on to sign in) or home. */
export const postSignOut: Handler<'postSignOut'> = async (input, ctx, deps) => {
  signOutSession(ctx, deps);
  redirectBack(ctx, deps, input.query.return_to, '/');
};
