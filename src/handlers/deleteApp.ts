import { deleteApp as removeApp, ownedApp } from '../oauth/clients.js';
import type { Handler } from './types.js';
import { signedInUser } from './web.js';

export const deleteApp: Handler = async (c, ctx, deps) => {
  const app = await ownedApp(deps.store, (c.request.params as { clientId: string }).clientId, signedInUser(ctx).id);
  await removeApp(deps.store, app.clientId);
  ctx.status = 204;
};
