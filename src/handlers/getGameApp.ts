import { gameApp } from '../games/games.js';
import type { Handler, JsonBody } from './types.js';

export const getGameApp: Handler = async (c, ctx, deps) => {
  const { gameId, clientId } = c.request.params as { gameId: string; clientId: string };
  const { app, owner } = await gameApp(deps.store, Number(gameId), clientId);
  const body: JsonBody<'getGameApp', 200> = { client_id: app.clientId, name: app.name, owner: { id: owner.id, name: owner.name } };
  ctx.body = body;
};
