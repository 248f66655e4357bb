import { GAME_SCOPES, issueGameCode as issue } from '../games/games.js';
import { recordConsent, useRememberedGrant } from '../oauth/grants.js';
import type { Handler, JsonBody } from './types.js';
import { signedInUser } from './web.js';

export const issueGameCode: Handler<'issueGameCode'> = async (input, ctx, deps) => {
  const gameId = Number(input.path.gameId);
  const userId = signedInUser(ctx).id;
  const { client_id: clientId, scopes, code_challenge: codeChallenge, code_challenge_method: codeChallengeMethod, nonce } = input.body;
  const code = await issue(deps, { gameId, clientId, scopes, userId, codeChallenge, codeChallengeMethod, nonce });
  // The play page skips its dialog only for a remembered grant; anything else was a consent click.
  if (!(await useRememberedGrant(deps, { userId, clientId, scopes: GAME_SCOPES }))) {
    await recordConsent(deps, { userId, clientId, scopes: GAME_SCOPES, flow: 'game' });
  }
  const body: JsonBody<'issueGameCode', 200> = { code };
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
