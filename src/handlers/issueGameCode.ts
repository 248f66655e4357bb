import { issueGameCode as issue } from '../games/games.js';
import type { Handler, JsonBody } from './types.js';
import { signedInUser } from './web.js';

export const issueGameCode: Handler<'issueGameCode'> = async (input, ctx, deps) => {
  const gameId = Number(input.path.gameId);
  const userId = signedInUser(ctx).id;
  const code = await issue(deps, { gameId, clientId: input.body.client_id, scopes: input.body.scopes, userId });
  // The play page's "Sign in with" button is the game flow's consent.
  deps.audit('consent_given', { userId, clientId: input.body.client_id, scopes: input.body.scopes, gameId, ip: ctx.ip });
  const body: JsonBody<'issueGameCode', 200> = { code };
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
