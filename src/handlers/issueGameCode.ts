import { issueGameCode as issue } from '../games/games.js';
import type { Handler, JsonBody } from './types.js';
import { signedInUser } from './web.js';

export const issueGameCode: Handler<'issueGameCode'> = async (input, ctx, deps) => {
  const gameId = Number(input.path.gameId);
  const code = await issue(deps, { gameId, clientId: input.body.client_id, scopes: input.body.scopes, userId: signedInUser(ctx).id });
  const body: JsonBody<'issueGameCode', 200> = { code };
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
