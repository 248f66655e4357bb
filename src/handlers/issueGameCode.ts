import { gameScopes, issueGameCode as issue } from '../games/games.js';
import { recordConsent, useRememberedGrant } from '../oauth/consent.js';
import { sessionAmr, sessionAuthTime } from '../sessions/session.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { signedInUser } from '../http/signed-in.js';

export const issueGameCode: Handler<'issueGameCode'> = async (input, ctx, deps) => {
  const gameId = Number(input.path.gameId);
  const userId = signedInUser(ctx).id;
  const { client_id: clientId, scopes, code_challenge: codeChallenge, code_challenge_method: codeChallengeMethod, nonce } = input.body;
  const authTime = sessionAuthTime(ctx) ?? deps.now();
  const amr = sessionAmr(ctx);
  const code = await issue(deps, { gameId, clientId, scopes, userId, authTime, amr, codeChallenge, codeChallengeMethod, nonce });
  // The play page skips its dialog only for a remembered grant; anything else was a consent click.
  const granted = gameScopes(scopes);
  if (!(await useRememberedGrant(deps, { userId, clientId, scopes: granted }))) {
    await recordConsent(deps, { userId, clientId, scopes: granted, flow: 'game' });
  }
  const body: JsonBody<'issueGameCode', 200> = { code };
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
