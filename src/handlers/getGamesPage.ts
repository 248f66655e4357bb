import { gamesPage } from '../pages/pages.js';
import type { Handler } from '../http/handler.js';
import { pageContext, sendHtml } from '../http/pages.js';

export const getGamesPage: Handler<'getGamesPage'> = async (_input, ctx, deps) => {
  const page = await pageContext(ctx, deps);
  sendHtml(ctx, gamesPage({ ...page, games: await deps.store.games.listGames() }));
};
