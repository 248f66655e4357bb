import { ownedApp, rotateSecret } from '../oauth/clients.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const rotateAppSecret: Handler<'rotateAppSecret'> = async (input, ctx, deps) => {
  const userId = signedInUser(ctx).id;
  const app = await ownedApp(deps.store, input.path.clientId, userId);
  const body: JsonBody<'rotateAppSecret', 200> = { client_id: app.clientId, client_secret: await rotateSecret(deps, app.clientId) };
  deps.audit('app_secret_rotated', { userId, clientId: app.clientId, ip: ctx.ip });
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
