import { deleteApp as removeApp, ownedApp } from '../oauth/clients.js';
import type { Handler } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const deleteApp: Handler<'deleteApp'> = async (input, ctx, deps) => {
  const userId = signedInUser(ctx).id;
  const app = await ownedApp(deps.store, input.path.clientId, userId);
  await removeApp(deps.store, app.clientId);
  deps.audit('app_deleted', { userId, clientId: app.clientId, ip: ctx.ip });
  ctx.status = 204;
};
