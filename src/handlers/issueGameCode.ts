import { issueGameCode as issue } from '../games/games.js';
import type { Handler, JsonBody } from './types.js';
import { signedInUser } from './web.js';

export const issueGameCode: Handler = async (c, ctx, deps) => {
  const input = c.request.requestBody as { client_id: string; scopes: string[] };
  const gameId = Number((c.request.params as { gameId: string }).gameId);
  const code = await issue(deps, { gameId, clientId: input.client_id, scopes: input.scopes, userId: signedInUser(ctx).id });
  const body: JsonBody<'issueGameCode', 200> = { code };
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
