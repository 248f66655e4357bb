import { appView, createApp } from '../oauth/clients.js';
import type { Handler, JsonBody } from './types.js';
import { signedInUser } from './web.js';

export const registerApp: Handler = async (c, ctx, deps) => {
  const input = c.request.requestBody as { name: string; redirect_uris: string[] };
  const { app, clientSecret } = await createApp(deps, { ownerId: signedInUser(ctx).id, name: input.name, redirectUris: input.redirect_uris });
  const body: JsonBody<'registerApp', 201> = { ...appView(app), client_secret: clientSecret };
  ctx.set('Cache-Control', 'no-store');
  ctx.status = 201;
  ctx.body = body;
};
