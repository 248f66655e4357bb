/** Apps (OAuth clients) with the authorization codes and access tokens issued to them: the records the domain, the store and the pages share. */
import type { UserRecord } from './users.js';

/**
 * The contract's GrantType enum, in its order (src/oauth/grant-types.ts checks that the two
 * agree): what an app may use at the token endpoint.
 */
export const GRANT_TYPES = ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'] as const;

export type GrantType = (typeof GRANT_TYPES)[number];

export interface AppRecord {
  clientId: string;
  /** SHA-256 of the client secret; null for a public app, which has none. */
  secretHash: string | null;
  /** A public client (no secret; every code needs a PKCE challenge). */
  public: boolean;
  ownerId: number;
  name: string;
  redirectUris: string[];
  /** Where the end-session endpoint may send the browser after signing out (exact match). */
  postLogoutRedirectUris: string[];
  /** The grants it may use at the token endpoint (RFC 7591 `grant_types`), in the contract's order. */
  grantTypes: GrantType[];
  createdAt: number;
}

/** What its owner (or the operator) may change of an app; a field left out stays. Never the secret or `public`. */
export type AppPatch = Partial<Pick<AppRecord, 'name' | 'redirectUris' | 'postLogoutRedirectUris' | 'grantTypes'>>;

export interface CodeRecord {
  codeHash: string;
  clientId: string;
  userId: number;
  scopes: string[];
  redirectUri: string | null;
  codeChallenge: string | null;
  /** The OpenID Connect request's nonce, repeated in the ID token; null when it sent none. */
  nonce: string | null;
  /** When the person signed in to the session the code was issued in (the ID token's auth_time). */
  authTime: number;
  /**
   * How the person signed in to that session (RFC 8176 values, the ID token's `amr`; its `acr`
   * follows from them); null when no sign-in stands behind the code (the operator CLI).
   */
  amr: string[] | null;
  expiresAt: number;
  usedAt: number | null;
  createdAt: number;
  /**
   * Read with the code, never written with it: its user's last credential change
   * (UserRecord.credentialsChangedAt), when there was one. A code made before it is refused.
   */
  userCredentialsChangedAt?: number;
}

export interface TokenRecord {
  tokenHash: string;
  clientId: string;
  userId: number;
  scopes: string[];
  codeHash: string | null;
  expiresAt: number;
  revokedAt: number | null;
  createdAt: number;
}

/**
 * What redeemCode did. `redeemed`: the code is claimed and its token stored. `expired`: an unused
 * code past its expiry; nothing written. `replayed`: the code was used already (by an earlier
 * exchange, or by a concurrent one that committed first) or is gone: every token issued from it is
 * revoked in the same transaction (RFC 6749 4.1.2), `revokedTokens` of them by this call.
 */
export type Redemption = { outcome: 'redeemed' } | { outcome: 'expired' } | { outcome: 'replayed'; revokedTokens: number };

export const REDEEMED: Redemption = Object.freeze({ outcome: 'redeemed' });

export const EXPIRED: Redemption = Object.freeze({ outcome: 'expired' });

/** A token together with the user it belongs to: what whois needs (and no more), in one read. */
export interface TokenWithUser {
  token: Pick<TokenRecord, 'clientId' | 'userId' | 'scopes' | 'expiresAt' | 'revokedAt' | 'createdAt'>;
  user: Pick<UserRecord, 'id' | 'name' | 'email' | 'pfpTimestamp'>;
}
