import { ownedApp, rotateSecret } from '../oauth/clients.js';
import type { Handler, JsonBody } from './types.js';
import { signedInUser } from './web.js';

export const rotateAppSecret: Handler = async (c, ctx, deps) => {
  const app = await ownedApp(deps.store, (c.request.params as { clientId: string }).clientId, signedInUser(ctx).id);
  const body: JsonBody<'rotateAppSecret', 200> = { client_id: app.clientId, client_secret: await rotateSecret(deps, app.clientId) };
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
