/**
 * A sign-in through an upstream identity provider (docs/account.md#signing-in-through-another-account)
 * as this browser's session holds it between requests: started and not yet back, then, back with
 * an identity that is neither linked nor an account yet, waiting for the person's next step.
 */

/** Started (POST /signin/upstream/{slug}) and not yet come back: what the callback must match. */
export interface UpstreamSignInStart {
  slug: string;
  /** Echoed by the upstream: binds the callback to this browser. */
  state: string;
  /** The ID token must carry it (OpenID Connect upstreams); null for an OAuth 2.0 upstream. */
  nonce: string | null;
  /** PKCE (RFC 7636): only this browser's callback can redeem the code. */
  codeVerifier: string;
  at: number;
  returnTo?: string;
  /** Started from the account page to link another identity to this signed-in user. */
  linkTo?: number;
  /**
   * Started from the account page by this signed-in user (an account without a password) to
   * confirm who they are by a new sign-in at an upstream where their account is linked
   * (docs/account.md#confirming-through-a-linked-account): `freshSince` is then the start.
   */
  confirmFor?: number;
  /**
   * Set when the app this sign-in is for asked for a fresh one (`prompt=login`: `at`; `max_age`:
   * `at` less that many seconds): the upstream's ID token must prove, by its `auth_time`, a sign-in
   * there no older than this (ms, give or take UPSTREAM_CLOCK_SKEW), or none is made here
   * (docs/account.md#re-authentication-through-an-upstream).
   */
  freshSince?: number;
}

/** Who the upstream says the person is, read once from its ID token or user info. */
export interface UpstreamIdentityClaims {
  subject: string;
  email: string | null;
  /** True only when the upstream says so (`email_verified`, or the claim mapping's member). */
  emailVerified: boolean;
  /** A suggestion for the public name (`preferred_username`, `name`, or the mapping's member). */
  name: string | null;
  /** RFC 8176 values the upstream's ID token asserted (none from an OAuth 2.0 upstream). */
  amr: string[];
  /**
   * When the person last authenticated at the upstream, as its ID token's `auth_time` says (ms,
   * never later than the callback); absent when it said nothing (an OAuth 2.0 upstream never does).
   */
  authTime?: number;
}

/** Back from the upstream with an identity no account has yet: a name to pick, or an account to link. */
export interface PendingUpstreamIdentity extends UpstreamIdentityClaims {
  slug: string;
  upstreamName: string;
  at: number;
  returnTo?: string;
  /** `sign_up`: a new account, after a name is picked; `link`: the account with this address signs in and confirms. */
  next: 'sign_up' | 'link';
  /** With `link`: the account that has the address, the only one that may take the link (after signing in again). */
  linkUserId?: number;
}

