import { appView } from '../oauth/clients.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const listApps: Handler<'listApps'> = async (_input, ctx, deps) => {
  const apps = await deps.store.apps.listAppsByOwner(signedInUser(ctx).id);
  const body: JsonBody<'listApps', 200> = { apps: apps.map(appView) };
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
