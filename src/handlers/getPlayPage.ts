import { GAME_SCOPES, gameOrigin, getGame } from '../games/games.js';
import { playPage } from '../pages/pages.js';
import { allowPageSources } from '../security/headers.js';
import type { Handler } from '../http/handler.js';
import { pageContext, sendHtml } from '../http/pages.js';

export const getPlayPage: Handler<'getPlayPage'> = async (input, ctx, deps) => {
  const game = await getGame(deps.store, Number(input.path.gameId));
  const origin = gameOrigin(game);
  allowPageSources(ctx, { frameSrc: [origin] });
  sendHtml(ctx, playPage({ ...(await pageContext(ctx, deps)), game, origin, scopes: GAME_SCOPES }));
};
