import { gameView, registerGame as createGame } from '../games/games.js';
import type { Handler, JsonBody } from './types.js';
import { signedInUser } from './web.js';

export const registerGame: Handler = async (c, ctx, deps) => {
  const input = c.request.requestBody as { title: string; url: string };
  const game = await createGame(deps, { authorId: signedInUser(ctx).id, title: input.title, url: input.url });
  const body: JsonBody<'registerGame', 201> = gameView(game);
  ctx.status = 201;
  ctx.body = body;
};
