import { appView, registerOAuthApp } from '../oauth/clients.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const registerApp: Handler<'registerApp'> = async (input, ctx, deps) => {
  const { name, redirect_uris, post_logout_redirect_uris } = input.body;
  const ownerId = signedInUser(ctx).id;
  const { app, clientSecret } = await registerOAuthApp(deps, {
    ownerId,
    name,
    redirectUris: redirect_uris,
    public: input.body.public,
    postLogoutRedirectUris: post_logout_redirect_uris,
    grantTypes: input.body.grant_types,
  });
  deps.audit('app_created', { userId: ownerId, clientId: app.clientId, ip: ctx.ip });
  // A public app has no secret: the field is left out, never null.
  const body: JsonBody<'registerApp', 201> = clientSecret === undefined ? appView(app) : { ...appView(app), client_secret: clientSecret };
  ctx.set('Cache-Control', 'no-store');
  ctx.status = 201;
  ctx.body = body;
};
