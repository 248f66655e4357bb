/**
 * OpenID Connect claims (docs/oauth.md#openid-connect): what the ID token and the UserInfo
 * endpoint say about a user, by scope. One function for both, so they never disagree.
 */
import type { components } from '../../generated/api.js';
import type { UserRecord } from '../domain/users.js';
import type { Scope } from './scopes.js';
import { LIFETIMES } from '../domain/lifetimes.js';

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
    // The public name is the only name the service keeps: it is `name` too (docs/oauth.md#claims).
    claims.name = user.name;
    claims.preferred_username = user.name;
    claims.profile = `${issuer}/users/${user.id}`;
    claims.picture = pictureUrl(issuer, user);
    claims.updated_at = seconds(user.profileUpdatedAt);
  }
  if (scopes.includes('email' satisfies Scope)) {
    claims.email = user.email;
    claims.email_verified = user.emailVerifiedAt !== null;
  }
  return claims;
}

/**
 * The authentication context classes an ID token's `acr` may name (docs/decisions.md#acr-values):
 * "1", one factor (a password, or a passkey without user verification); "2", two factors (the
 * sign-in's amr has `mfa`: password and authenticator-app code, or a passkey with user verification).
 */
export const ACR_VALUES = ['1', '2'] as const;

/** The `acr` of a sign-in made with these methods (RFC 8176 values). */
function acrOf(amr: readonly string[]): (typeof ACR_VALUES)[number] {
  return amr.includes('mfa') ? '2' : '1';
}

/**
 * Whether an authorization request's `acr_values` (space-separated, in order of preference) asks
 * for two factors: every value of it this service knows is "2". Unknown values are ignored, so a
 * request naming only those asks for nothing.
 */
export function asksForTwoFactors(acrValues: string | undefined): boolean {
  const known = (acrValues ?? '').split(' ').filter((v) => (ACR_VALUES as readonly string[]).includes(v));
  return known.length > 0 && known.every((v) => v === '2');
}

/** The ID token's claims (OpenID Connect Core 2, 3.1.3.6) for a code redeemed at `now` by `clientId`. */
export function idTokenClaims(input: {
  user: ClaimsUser;
  scopes: readonly string[];
  clientId: string;
  issuer: string;
  authTime: number;
  /** How the person signed in; null when no sign-in stands behind the code (then no amr, no acr). */
  amr: readonly string[] | null;
  nonce: string | null;
  now: number;
}): Record<string, unknown> {
  const iat = seconds(input.now);
  const { sub, ...scoped } = userClaims(input.user, input.scopes, input.issuer);
  return {
    iss: input.issuer,
    sub,
    aud: input.clientId,
    exp: iat + LIFETIMES.idToken / 1000,
    iat,
    auth_time: seconds(input.authTime),
    ...(input.amr === null ? {} : { amr: [...input.amr], acr: acrOf(input.amr) }),
    ...(input.nonce === null ? {} : { nonce: input.nonce }),
    azp: input.clientId,
    ...scoped,
  };
}
