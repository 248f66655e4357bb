/**
 * Upstream identity providers (issue 41): the providers the operator lets people sign in through,
 * kept in the database so every instance sees the same set. The records the domain and the store
 * share, and the slug rule that names each one in its callback address.
 */

/** OpenID Connect by its issuer (discovery, ID token), or plain OAuth 2.0 by an endpoint triple and a claim mapping. */
export type UpstreamKind = 'oidc' | 'oauth2';

/** The providers whose settings the service knows (src/upstreams/presets.ts). */
export const UPSTREAM_PRESET_NAMES = ['google', 'discord', 'github'] as const;
export type UpstreamPresetName = (typeof UPSTREAM_PRESET_NAMES)[number];

/**
 * Which member of an OAuth 2.0 provider's user-info answer gives each fact. `emailVerified` is
 * null where the answer carries no such flag: its email is then never taken as verified.
 */
export interface ClaimMapping {
  subject: string;
  name: string;
  email: string;
  emailVerified: string | null;
}

export interface UpstreamRecord {
  /** Lowercase a-z, 0-9 and dashes, derived from `name` (upstreamSlug); unique; in the callback address. */
  slug: string;
  /** As shown: "Sign in with <name>". */
  name: string;
  kind: UpstreamKind;
  /** The preset it was made from (its settings copied into this record), or null. */
  preset: UpstreamPresetName | null;
  /** The OpenID Connect issuer (kind 'oidc'); null for 'oauth2'. */
  issuer: string | null;
  /** The endpoint triple (kind 'oauth2'); null for 'oidc', where discovery gives them. */
  authorizationEndpoint: string | null;
  tokenEndpoint: string | null;
  userinfoEndpoint: string | null;
  /** Kind 'oauth2' only; null for 'oidc', whose ID token and user info carry the standard claims. */
  claimMapping: ClaimMapping | null;
  scopes: string[];
  clientId: string;
  /** The client secret, sealed (src/security/sealed.ts): a compact JWE, never the secret itself. */
  clientSecretSealed: string;
  /** A disabled upstream is kept with its settings but offers no sign-in. */
  enabled: boolean;
  /**
   * Whether its ID token's `amr` `mfa` counts as a second factor here (the operator's choice,
   * `admin upstream update --trust-mfa`; off when added): it then spares the account's
   * authenticator-app step and stays in the session's `amr` (acr 2). Off, the upstream's `mfa` is
   * dropped and the account's own second factor is asked (docs/account.md#trusting-an-upstreams-mfa).
   */
  trustMfa: boolean;
  createdAt: number;
}

/** The longest slug (and shown name). */
export const UPSTREAM_NAME_MAX = 64;

/**
 * A shown name's slug: accents dropped, lower case, every run of other characters than a-z and
 * 0-9 one dash, no dash at either end, at most UPSTREAM_NAME_MAX characters ('My Company SSO' ->
 * 'my-company-sso'). Empty when the name has no letter or digit of a-z or 0-9 (the caller refuses
 * such a name).
 */
export function upstreamSlug(name: string): string {
  const dashed = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '');
  return dashed.slice(0, UPSTREAM_NAME_MAX).replace(/-+$/, '');
}

/** An account at an upstream, linked to an account here: signing in there signs in here. */
export interface UpstreamIdentityRecord {
  id: number;
  userId: number;
  upstreamSlug: string;
  /** The upstream's shown name (joined from its record). */
  upstreamName: string;
  /** Who the person is at the upstream: its `sub`, or the member its claim mapping names. Unique per upstream. */
  subject: string;
  /** The address the upstream gave when the link was made; null when it gave none. */
  email: string | null;
  createdAt: number;
  /** The last sign-in through it (ms since epoch); null until there is one. */
  lastUsedAt: number | null;
}

/** What linking an identity stores (its upstream's name is read from the upstream). */
export type NewUpstreamIdentity = Pick<UpstreamIdentityRecord, 'userId' | 'upstreamSlug' | 'subject' | 'email' | 'createdAt'>;
