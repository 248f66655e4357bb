import { InvalidInput } from '../domain/errors.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { authenticateAccessToken, authenticateBearer } from '../oauth/bearer.js';
import { userInfo } from '../oauth/userinfo.js';

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
  const body: JsonBody<'postOidcUserInfo', 200> = await userInfo(deps.store, found, deps.config.publicUrl);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
