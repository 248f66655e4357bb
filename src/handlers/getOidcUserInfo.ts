import { Unauthenticated } from '../domain/errors.js';
import { requireScope } from '../oauth/bearer.js';
import { userClaims } from '../oauth/claims.js';
import type { AppDeps, Handler, JsonBody } from './types.js';
import type Koa from 'koa';

/** OpenID Connect UserInfo (Core 5.3), for GET and POST alike: `sub` and the claims of the token's scopes. */
async function answer(ctx: Koa.Context, deps: AppDeps): Promise<void> {
  const found = ctx.state.bearer;
  if (!found) throw new Error('the UserInfo endpoint runs only after the bearerAuth security handler');
  requireScope(found, 'openid');
  // The token's read carries only what whois needs; the claims want the whole user.
  const user = await deps.store.getUser(found.user.id);
  // Deleting a user deletes their tokens: only a deletion racing this request gets here.
  if (!user) throw new Unauthenticated('Invalid access token', 'Bearer realm="whois", error="invalid_token"');
  ctx.set('Cache-Control', 'no-store');
  const body: JsonBody<'getOidcUserInfo', 200> = userClaims(user, found.token.scopes, deps.config.publicUrl);
  ctx.body = body;
}

export const getOidcUserInfo: Handler<'getOidcUserInfo'> = async (_input, ctx, deps) => answer(ctx, deps);
export const postOidcUserInfo: Handler<'postOidcUserInfo'> = async (_input, ctx, deps) => answer(ctx, deps);
