/**
 * What the token endpoint's grants (src/oauth/grants/) share: the request, the answer, the tokens' records, the ID token.
 */
import type { TokenRecord } from '../domain/apps.js';
import { LIFETIMES } from '../domain/lifetimes.js';
import type { RefreshTokenRecord } from '../domain/refresh-tokens.js';
import { hashSecret, randomSecret } from '../security/secrets.js';
import { idTokenClaims } from './claims.js';
import type { ClientAuthParams } from './client-authentication.js';
import type { Deps } from './deps.js';
import type { KeyRing } from './keys.js';
import { TOKEN_BYTES } from './secrets.js';

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

/** What a grant issues an access token (and perhaps a refresh token) for. */
interface TokenPairFields {
  clientId: string;
  userId: number;
  /** What the sign-in was granted: the refresh token's scopes, and the access token's unless `accessScopes`. */
  scopes: string[];
  /** Fewer scopes for the access token (a refresh that asked for fewer). */
  accessScopes?: string[];
  /** The code the access token is redeemed from (a replay of the code revokes it); null for the other grants. */
  codeHash: string | null;
  /** A refresh token too, of this family; null: none. */
  refresh: RefreshFamily | null;
}

/** The sign-in a refresh token continues (the refreshed ID token's auth_time and amr). */
interface RefreshFamily {
  familyId: string;
  authTime: number;
  amr: string[] | null;
  /** The family's absolute expiry when it exists already (a rotation); absent, the family starts now. */
  familyExpiresAt?: number;
}

/** The tokens of a grant: in the clear for the answer, as records for the store. */
interface TokenPair {
  accessToken: string;
  access: TokenRecord;
  refreshToken: string | undefined;
  refresh: RefreshTokenRecord | null;
}

/**
 * A new access token (LIFETIMES.accessToken) and, when `fields.refresh` is given, a refresh token
 * bound to it: idle for refreshTokenIdleSeconds, never past its family's absolute expiry
 * (refreshTokenAbsoluteSeconds after the family started).
 */
export function newTokenPair(
  deps: Pick<ExchangeDeps, 'config'>,
  fields: TokenPairFields & { refresh: RefreshFamily },
  now: number,
): TokenPair & { refreshToken: string; refresh: RefreshTokenRecord };
export function newTokenPair(deps: Pick<ExchangeDeps, 'config'>, fields: TokenPairFields, now: number): TokenPair;
export function newTokenPair(deps: Pick<ExchangeDeps, 'config'>, fields: TokenPairFields, now: number): TokenPair {
  const accessToken = randomSecret(TOKEN_BYTES);
  const access: TokenRecord = {
    tokenHash: hashSecret(accessToken),
    clientId: fields.clientId,
    userId: fields.userId,
    scopes: fields.accessScopes ?? fields.scopes,
    codeHash: fields.codeHash,
    expiresAt: now + LIFETIMES.accessToken,
    revokedAt: null,
    createdAt: now,
  };
  if (fields.refresh === null) return { accessToken, access, refreshToken: undefined, refresh: null };
  const refreshToken = randomSecret(TOKEN_BYTES);
  const familyExpiresAt = fields.refresh.familyExpiresAt ?? now + deps.config.refreshTokenAbsoluteSeconds * 1000;
  const refresh: RefreshTokenRecord = {
    tokenHash: hashSecret(refreshToken),
    familyId: fields.refresh.familyId,
    clientId: fields.clientId,
    userId: fields.userId,
    scopes: fields.scopes,
    authTime: fields.refresh.authTime,
    amr: fields.refresh.amr,
    accessTokenHash: access.tokenHash,
    familyExpiresAt,
    expiresAt: Math.min(now + deps.config.refreshTokenIdleSeconds * 1000, familyExpiresAt),
    usedAt: null,
    revokedAt: null,
    createdAt: now,
  };
  return { accessToken, access, refreshToken, refresh };
}
