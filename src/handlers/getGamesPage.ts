import { gamesPage } from '../pages/pages.js';
import type { Handler } from './types.js';
import { pageContext, sendHtml } from './web.js';

export const getGamesPage: Handler<'getGamesPage'> = async (_input, ctx, deps) => {
  const page = await pageContext(ctx, deps);
  sendHtml(ctx, gamesPage({ ...page, games: await deps.store.listGames() }));
};
