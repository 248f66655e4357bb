import { appView, registerOAuthApp } from '../oauth/clients.js';
import type { Handler, JsonBody } from './types.js';
import { signedInUser } from './web.js';

export const registerApp: Handler<'registerApp'> = async (input, ctx, deps) => {
  const { name, redirect_uris } = input.body;
  const { app, clientSecret } = await registerOAuthApp(deps, { ownerId: signedInUser(ctx).id, name, redirectUris: redirect_uris });
  const body: JsonBody<'registerApp', 201> = { ...appView(app), client_secret: clientSecret };
  ctx.set('Cache-Control', 'no-store');
  ctx.status = 201;
  ctx.body = body;
};
