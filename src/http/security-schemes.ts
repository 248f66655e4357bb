import { ApiError } from './error-responses.js';
import { SIGN_IN_FIRST } from '../domain/errors.js';
import { csrfTokenValid } from '../sessions/csrf.js';
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
 * The `csrf` scheme: the session's token in X-CSRF-Token, or in the `_csrf` field of a form. The
 * body is not validated yet (security handlers run first): it may be anything, so it is checked
 * for the field rather than given a type.
 */
export const csrf: SecurityHandler = async (c, ctx) => {
  const body: unknown = c.request.requestBody;
  const token = ctx.get('X-CSRF-Token') || (typeof body === 'object' && body !== null && '_csrf' in body ? body._csrf : undefined);
  if (!csrfTokenValid(ctx, token)) throw new ApiError(403, 'Invalid CSRF token');
  return true;
};
