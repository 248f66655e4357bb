import { deleteApp as removeApp, ownedApp } from '../oauth/clients.js';
import type { Handler } from './types.js';
import { signedInUser } from './web.js';

export const deleteApp: Handler<'deleteApp'> = async (input, ctx, deps) => {
  const app = await ownedApp(deps.store, input.path.clientId, signedInUser(ctx).id);
  await removeApp(deps.store, app.clientId);
  ctx.status = 204;
};
