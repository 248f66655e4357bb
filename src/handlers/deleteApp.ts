import { deleteApp as removeApp, ownedApp } from '../oauth/clients.js';
import type { Handler } from './types.js';
import { signedInUser } from './web.js';

export const deleteApp: Handler<'deleteApp'> = async (input, ctx, deps) => {
  const userId = signedInUser(ctx).id;
  const app = await ownedApp(deps.store, input.path.clientId, userId);
  await removeApp(deps.store, app.clientId);
  deps.audit('app_deleted', { userId, clientId: app.clientId, ip: ctx.ip });
  ctx.status = 204;
};
