import { appView, ownedApp, updateOAuthApp } from '../oauth/clients.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const updateApp: Handler<'updateApp'> = async (input, ctx, deps) => {
  const userId = signedInUser(ctx).id;
  const app = await ownedApp(deps.store, input.path.clientId, userId);
  const { name, redirect_uris, post_logout_redirect_uris, grant_types } = input.body;
  const updated = await updateOAuthApp(deps.store, app.clientId, {
    name,
    redirectUris: redirect_uris,
    postLogoutRedirectUris: post_logout_redirect_uris,
    grantTypes: grant_types,
  });
  const fields = Object.entries({ name, redirect_uris, post_logout_redirect_uris, grant_types }).flatMap(([field, value]) => (value === undefined ? [] : [field]));
  deps.audit('app_updated', { userId, clientId: app.clientId, fields, ip: ctx.ip });
  const body: JsonBody<'updateApp', 200> = appView(updated);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
