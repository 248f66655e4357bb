/** The token endpoint: which grant answers a request. */
import { InvalidInput } from '../domain/errors.js';
import { refreshGrant } from './refresh.js';
import { exchangeCode } from './token-exchange.js';
import { deviceCodeGrant, type DeviceDeps } from './device.js';
import { DEVICE_CODE_GRANT } from './grant-types.js';
import type { TokenParams, TokenResult } from './tokens.js';

/**
 * The token endpoint (RFC 6749 section 3.2): the refresh grant (src/oauth/refresh.ts), a device's
 * poll (src/oauth/device.ts), or the code exchange. A request that is no refresh and has no code is refused first, whatever else it
 * holds, with the words the contract's validator answered when `code` was required of every
 * request (the seed's answers stay as they were).
 */
export async function tokenRequest(deps: DeviceDeps, params: TokenParams, authorization: string | undefined): Promise<TokenResult> {
  if (params.grant_type === 'refresh_token') return refreshGrant(deps, params, authorization);
  if (params.grant_type === DEVICE_CODE_GRANT) return deviceCodeGrant(deps, params, authorization);
  if (params.code === undefined) throw new InvalidInput('Body field code is required');
  return exchangeCode(deps, params, authorization);
}

