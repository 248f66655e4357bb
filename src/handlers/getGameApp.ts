import { gameApp } from '../games/games.js';
import type { Handler, JsonBody } from './types.js';

export const getGameApp: Handler<'getGameApp'> = async (input, ctx, deps) => {
  const { gameId, clientId } = input.path;
  const { app, owner } = await gameApp(deps.store, Number(gameId), clientId);
  const body: JsonBody<'getGameApp', 200> = { client_id: app.clientId, name: app.name, owner: { id: owner.id, name: owner.name } };
  ctx.body = body;
};
