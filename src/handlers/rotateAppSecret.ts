import { ownedApp, rotateSecret } from '../oauth/clients.js';
import type { Handler, JsonBody } from './types.js';
import { signedInUser } from './web.js';

export const rotateAppSecret: Handler<'rotateAppSecret'> = async (input, ctx, deps) => {
  const app = await ownedApp(deps.store, input.path.clientId, signedInUser(ctx).id);
  const body: JsonBody<'rotateAppSecret', 200> = { client_id: app.clientId, client_secret: await rotateSecret(deps, app.clientId) };
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
