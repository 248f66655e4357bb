/** What the token endpoint's grants (src/oauth/token-exchange.ts, src/oauth/refresh.ts) share: the request, the answer, the ID token. */
import { idTokenClaims } from './claims.js';
import type { ClientAuthParams, Deps } from './clients.js';
import type { KeyRing } from './keys.js';

/**
 * An access token's `expires_in`, fixed at 600 by the interface (docs/decisions.md#token-endpoint):
 * LIFETIMES.accessToken in seconds (test/docs/lifetimes.test.ts checks that they agree).
 */
export const EXPIRES_IN_SECONDS = 600;

export interface TokenParams extends ClientAuthParams {
  grant_type?: string;
  code?: string;
  redirect_uri?: string;
  code_verifier?: string;
  refresh_token?: string;
  device_code?: string;
  scope?: string;
}

export interface TokenResult {
  access_token: string;
  token_type: 'Bearer';
  expires_in: 600;
  /** Only when the grant has `offline_access` (and the app the refresh_token grant). */
  refresh_token?: string;
  /** Only when the code was granted `openid`. */
  id_token?: string;
}

export interface ExchangeDeps extends Deps {
  keys: KeyRing;
  config: { publicUrl: string; refreshTokenIdleSeconds: number; refreshTokenAbsoluteSeconds: number };
}

/** An ID token (OpenID Connect Core 3.1.3.3, and 12.2 for a refresh), signed with the current key. */
export function signIdToken(deps: ExchangeDeps, fields: Omit<Parameters<typeof idTokenClaims>[0], 'issuer' | 'now'>, now: number): Promise<string> {
  return deps.keys.sign(idTokenClaims({ ...fields, issuer: deps.config.publicUrl, now }));
}

