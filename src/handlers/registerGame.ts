import { gameView, registerGame as createGame } from '../games/games.js';
import type { Handler, JsonBody } from './types.js';
import { signedInUser } from './web.js';

export const registerGame: Handler<'registerGame'> = async (input, ctx, deps) => {
  const { title, url } = input.body;
  const game = await createGame(deps, { authorId: signedInUser(ctx).id, title, url });
  const body: JsonBody<'registerGame', 201> = gameView(game);
  ctx.status = 201;
  ctx.body = body;
};
