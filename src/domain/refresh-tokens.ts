/**
 * Refresh tokens (RFC 6749 section 6): the records the domain and the store share. Every use
 * rotates the token (RFC 9700 section 4.14.2): the used one is kept, marked used, so that a second
 * use of it shows a stolen copy and ends its whole family, the tokens of one sign-in.
 */

export interface RefreshTokenRecord {
  /** SHA-256 of the token. */
  tokenHash: string;
  /** The family: the hash of the code that started it (a replayed code ends the family too). */
  familyId: string;
  clientId: string;
  userId: number;
  /** What the family was granted (`offline_access` among them); a refresh may ask for fewer. */
  scopes: string[];
  /** When the person signed in (the refreshed ID token's `auth_time`). */
  authTime: number;
  /** How they signed in (the refreshed ID token's `amr`); null when no sign-in stands behind it. */
  amr: string[] | null;
  /** The access token issued together with this refresh token (revoked with the family). */
  accessTokenHash: string;
  /** The family's absolute expiry: no rotation extends a token past it. */
  familyExpiresAt: number;
  /** The idle expiry: unused this long, the token is dead; never after familyExpiresAt. */
  expiresAt: number;
  /** When a rotation replaced it; a used token presented again is a replay. */
  usedAt: number | null;
  revokedAt: number | null;
  createdAt: number;
}

/**
 * What rotateRefreshToken did. `rotated`: the token is marked used and its successor stored with
 * its access token. `reused`: the token was used already (by an earlier refresh, or a concurrent
 * one that committed first): its family is revoked in the same transaction, `revokedTokens`
 * refresh and access tokens by this call. `dead`: unknown, expired or revoked; nothing written.
 */
export type Rotation = { outcome: 'rotated' } | { outcome: 'reused'; revokedTokens: number } | { outcome: 'dead' };

export const ROTATED: Rotation = Object.freeze({ outcome: 'rotated' });

export const DEAD: Rotation = Object.freeze({ outcome: 'dead' });
