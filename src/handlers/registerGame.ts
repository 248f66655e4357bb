import { gameView, registerGame as createGame } from '../games/games.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const registerGame: Handler<'registerGame'> = async (input, ctx, deps) => {
  const { title, url } = input.body;
  const authorId = signedInUser(ctx).id;
  const game = await createGame(deps, { authorId, title, url });
  deps.audit('game_created', { userId: authorId, gameId: game.id, ip: ctx.ip });
  const body: JsonBody<'registerGame', 201> = gameView(game);
  ctx.status = 201;
  ctx.body = body;
};
