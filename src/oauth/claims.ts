/**
 * OpenID Connect claims (docs/oauth.md#openid-connect): what the ID token and the UserInfo
 * endpoint say about a user, by scope. One function for both, so they never disagree.
 */
import type { components } from '../../generated/api.js';
import type { UserRecord } from '../store/types.js';
import { ID_TOKEN_TTL_SECONDS } from './keys.js';
import type { Scope } from './scopes.js';

/** The user fields the claims are made of. */
type ClaimsUser = Pick<UserRecord, 'id' | 'name' | 'email' | 'emailVerifiedAt' | 'pfpTimestamp' | 'profileUpdatedAt'>;

/** The contract's UserInfo answer: `sub` and the claims of the scopes. */
type UserClaims = components['schemas']['OidcUserInfo'];

/** ms since the epoch as a JWT NumericDate: whole seconds (ID tokens, UserInfo, introspection). */
export const seconds = (ms: number): number => Math.floor(ms / 1000);

/** The large picture's address, or the default picture's plain address when the user has none. */
function pictureUrl(issuer: string, user: Pick<UserRecord, 'id' | 'pfpTimestamp'>): string {
  const file = user.pfpTimestamp === null ? `${user.id}` : `${user.id}-${user.pfpTimestamp}`;
  return `${issuer}/pfp/large/${file}.webp`;
}

/** `sub` and the claims of `profile` and `email` among the scopes. */
export function userClaims(user: ClaimsUser, scopes: readonly string[], issuer: string): UserClaims {
  const claims: UserClaims = { sub: String(user.id) };
  if (scopes.includes('profile' satisfies Scope)) {
    claims.preferred_username = user.name;
    claims.picture = pictureUrl(issuer, user);
    claims.updated_at = seconds(user.profileUpdatedAt);
  }
  if (scopes.includes('email' satisfies Scope)) {
    claims.email = user.email;
    claims.email_verified = user.emailVerifiedAt !== null;
  }
  return claims;
}

/** The ID token's claims (OpenID Connect Core 2, 3.1.3.6) for a code redeemed at `now` by `clientId`. */
export function idTokenClaims(input: {
  user: ClaimsUser;
  scopes: readonly string[];
  clientId: string;
  issuer: string;
  authTime: number;
  nonce: string | null;
  now: number;
}): Record<string, unknown> {
  const iat = seconds(input.now);
  const { sub, ...scoped } = userClaims(input.user, input.scopes, input.issuer);
  return {
    iss: input.issuer,
    sub,
    aud: input.clientId,
    exp: iat + ID_TOKEN_TTL_SECONDS,
    iat,
    auth_time: seconds(input.authTime),
    ...(input.nonce === null ? {} : { nonce: input.nonce }),
    azp: input.clientId,
    ...scoped,
  };
}
