import { appView, registerOAuthApp } from '../oauth/clients.js';
import type { Handler, JsonBody } from './types.js';
import { signedInUser } from './web.js';

export const registerApp: Handler<'registerApp'> = async (input, ctx, deps) => {
  const { name, redirect_uris } = input.body;
  const ownerId = signedInUser(ctx).id;
  const { app, clientSecret } = await registerOAuthApp(deps, { ownerId, name, redirectUris: redirect_uris });
  deps.audit('app_created', { userId: ownerId, clientId: app.clientId, ip: ctx.ip });
  const body: JsonBody<'registerApp', 201> = { ...appView(app), client_secret: clientSecret };
  ctx.set('Cache-Control', 'no-store');
  ctx.status = 201;
  ctx.body = body;
};
