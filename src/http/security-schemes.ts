/**
 * The security handlers: one per security scheme of openapi.yaml that needs one. clientBasic has
 * none: the token, revocation and introspection endpoints authenticate the client themselves
 * (src/oauth/client-authentication.ts), since the credentials may come in the body instead.
 */
import { ApiError } from './error-responses.js';
import { SIGN_IN_FIRST } from '../domain/errors.js';
import { authenticateBearer } from '../oauth/bearer.js';
import { INVALID_CSRF_TOKEN, sentValidCsrfToken } from '../sessions/csrf.js';
import type { SecurityHandler } from './handler.js';
import { currentUser } from './signed-in.js';

/**
 * The `bearerAuth` scheme: resolves the token and its user, or throws Unauthenticated (a 401 with
 * a Bearer challenge).
 */
const bearerAuth: SecurityHandler = async (_c, ctx, deps) => {
  const found = await authenticateBearer(deps.store, ctx.get('Authorization') || undefined, deps.now());
  ctx.state.bearer = found;
  return found;
};

/** The `session` scheme: a signed-in user, or 401. */
const session: SecurityHandler = async (_c, ctx, deps) => {
  const user = await currentUser(ctx, deps);
  if (!user) throw new ApiError(401, SIGN_IN_FIRST);
  ctx.state.user = user;
  return true;
};

/**
 * The `csrf` scheme: the session's token in X-CSRF-Token, or in the `_csrf` field of a form (the
 * body is not validated yet: security handlers run first).
 */
const csrf: SecurityHandler = async (c, ctx) => {
  if (!sentValidCsrfToken(ctx, c.request.requestBody)) throw new ApiError(403, INVALID_CSRF_TOKEN);
  return true;
};

export const securityHandlers = { bearerAuth, session, csrf } satisfies Record<string, SecurityHandler>;
