import { authorizeAddressOf } from '../oauth/authorize.js';
import { answerAuthorizationRequest } from './authorization-request.js';
import type { Handler } from './types.js';
import { RETURN_TO_MAX } from './web.js';

/**
 * This authorization request as the address to come back to after signing in: as it came, or,
 * when that is longer than RETURN_TO_MAX, with only its declared parameters (the others are
 * ignored anyway), which at their `maxLength` in the worst encoding always fit. Applied to its own
 * result it gives the same address, so the request that comes back is recognised (takeFreshSignIn).
 */
function authorizeAddress(querystring: string, params: Parameters<typeof authorizeAddressOf>[0]): string {
  const asSent = `/oauth?${querystring}`;
  return asSent.length <= RETURN_TO_MAX ? asSent : authorizeAddressOf(params);
}

export const getAuthorize: Handler<'getAuthorize'> = async (input, ctx, deps) =>
  answerAuthorizationRequest(input.query, authorizeAddress(ctx.querystring, input.query), ctx, deps);
