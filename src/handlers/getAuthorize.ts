import { authorizationSession, sendAuthorizationAnswer } from '../http/authorization.js';
import type { Handler } from '../http/handler.js';
import { RETURN_TO_MAX } from '../security/return-paths.js';
import { answerAuthorizationRequest, type AuthorizationRequest } from '../oauth/authorization-policy.js';
import { authorizeAddressOf } from '../oauth/authorize.js';

/**
 * This authorization request as the address to come back to after signing in: as it came, or,
 * when that is longer than RETURN_TO_MAX, with only its declared parameters (the others are
 * ignored anyway), which at their `maxLength` in the worst encoding always fit. Applied to its own
 * result it gives the same address, so the request that comes back is recognised (takeFreshSignIn).
 */
function authorizeAddress(querystring: string, params: AuthorizationRequest): string {
  const asSent = `/oauth?${querystring}`;
  return asSent.length <= RETURN_TO_MAX ? asSent : authorizeAddressOf(params);
}

export const getAuthorize: Handler<'getAuthorize'> = async (input, ctx, deps) => {
  const address = authorizeAddress(ctx.querystring, input.query);
  const answer = await answerAuthorizationRequest(deps, input.query, authorizationSession(ctx, deps, address));
  await sendAuthorizationAnswer(ctx, deps, answer, address);
};
