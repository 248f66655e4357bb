import { gameView } from '../games/games.js';
import type { Handler, JsonBody } from '../http/handler.js';

export const listGames: Handler<'listGames'> = async (_input, ctx, deps) => {
  const body: JsonBody<'listGames', 200> = { games: (await deps.store.games.listGames()).map(gameView) };
  ctx.body = body;
};
