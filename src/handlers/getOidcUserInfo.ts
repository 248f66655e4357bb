import type { Handler, JsonBody } from '../http/handler.js';
import { userInfo } from '../oauth/userinfo.js';

export const getOidcUserInfo: Handler<'getOidcUserInfo'> = async (_input, ctx, deps) => {
  const found = ctx.state.bearer;
  if (!found) throw new Error('the UserInfo endpoint runs only after the bearerAuth security handler');
  const body: JsonBody<'getOidcUserInfo', 200> = await userInfo(deps.store, found, deps.config.publicUrl);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
