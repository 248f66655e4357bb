import { gameView, ownedGame, updateGame as changeGame } from '../games/games.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const updateGame: Handler<'updateGame'> = async (input, ctx, deps) => {
  const userId = signedInUser(ctx).id;
  const game = await ownedGame(deps.store, Number(input.path.gameId), userId);
  const { title, url } = input.body;
  const updated = await changeGame(deps.store, game.id, { title, url });
  const fields = Object.entries({ title, url }).flatMap(([field, value]) => (value === undefined ? [] : [field]));
  deps.audit('game_updated', { userId, gameId: game.id, fields, ip: ctx.ip });
  const body: JsonBody<'updateGame', 200> = gameView(updated);
  ctx.body = body;
};
