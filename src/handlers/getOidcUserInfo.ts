import { InvalidInput, Unauthenticated } from '../domain/errors.js';
import { authenticateAccessToken, authenticateBearer, requireScope } from '../oauth/bearer.js';
import { userClaims } from '../oauth/claims.js';
import type { TokenWithUser } from '../store/types.js';
import type { AppDeps, Handler, JsonBody } from './types.js';
import type Koa from 'koa';

/** OpenID Connect UserInfo (Core 5.3), for GET and POST alike: `sub` and the claims of the token's scopes. */
async function answer(found: TokenWithUser, ctx: Koa.Context, deps: AppDeps): Promise<void> {
  requireScope(found, 'openid');
  // The token's read carries only what whois needs; the claims want the whole user.
  const user = await deps.store.getUser(found.user.id);
  // Deleting a user deletes their tokens: only a deletion racing this request gets here.
  if (!user) throw new Unauthenticated('Invalid access token', 'Bearer realm="whois", error="invalid_token"');
  ctx.set('Cache-Control', 'no-store');
  const body: JsonBody<'getOidcUserInfo', 200> = userClaims(user, found.token.scopes, deps.config.publicUrl);
  ctx.body = body;
}

export const getOidcUserInfo: Handler<'getOidcUserInfo'> = async (_input, ctx, deps) => {
  const found = ctx.state.bearer;
  if (!found) throw new Error('the UserInfo endpoint runs only after the bearerAuth security handler');
  return answer(found, ctx, deps);
};

/**
 * POST: the token in the Authorization header (then the bearerAuth scheme has resolved it), or
 * in the form body's `access_token` (RFC 6750 2.2), never both (RFC 6750 2: one method only).
 * With neither usable, the answer is the header's own refusal (a 401 with its challenge).
 */
export const postOidcUserInfo: Handler<'postOidcUserInfo'> = async (input, ctx, deps) => {
  const inBody = input.body?.access_token;
  const header = ctx.get('Authorization') || undefined;
  if (inBody !== undefined && header !== undefined) {
    throw new InvalidInput('Send the access token either in the Authorization header or in the body, not both');
  }
  const found =
    ctx.state.bearer ??
    (inBody === undefined ? await authenticateBearer(deps.store, header, deps.now()) : await authenticateAccessToken(deps.store, inBody, deps.now()));
  // The app whose browser pages may read the answer (x-cors: client) is the token's.
  ctx.state.bearer = found;
  return answer(found, ctx, deps);
};
