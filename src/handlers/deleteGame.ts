import { deleteGame as removeGame, ownedGame } from '../games/games.js';
import type { Handler } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const deleteGame: Handler<'deleteGame'> = async (input, ctx, deps) => {
  const userId = signedInUser(ctx).id;
  const game = await ownedGame(deps.store, Number(input.path.gameId), userId);
  await removeGame(deps.store, game.id);
  deps.audit('game_deleted', { userId, gameId: game.id, ip: ctx.ip });
  ctx.status = 204;
};
