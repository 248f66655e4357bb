import { ApiError } from './error-responses.js';
import { SIGN_IN_FIRST } from '../domain/errors.js';
import { INVALID_CSRF_TOKEN, sentValidCsrfToken } from '../sessions/csrf.js';
import { currentUser } from '../handlers/web.js';
import type { SecurityHandler } from '../handlers/types.js';

/** The `session` scheme: a signed-in user, or 401. */
export const session: SecurityHandler = async (_c, ctx, deps) => {
  const user = await currentUser(ctx, deps);
  if (!user) throw new ApiError(401, SIGN_IN_FIRST);
  ctx.state.user = user;
  return true;
};

/**
 * The `csrf` scheme: the session's token in X-CSRF-Token, or in the `_csrf` field of a form (the
 * body is not validated yet: security handlers run first).
 */
export const csrf: SecurityHandler = async (c, ctx) => {
  if (!sentValidCsrfToken(ctx, c.request.requestBody)) throw new ApiError(403, INVALID_CSRF_TOKEN);
  return true;
};
