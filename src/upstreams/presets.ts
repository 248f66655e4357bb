/**
 * The upstream providers whose settings the service knows, so the operator gives only a client id
 * and secret (docs/operations.md#upstream-identity-providers). A preset is copied into the
 * upstream's record when it is added (docs/decisions.md#upstream-identity-providers). Checked
 * against each provider's published documentation, not called (test/upstreams/presets.test.ts).
 */
import type { ClaimMapping, UpstreamKind, UpstreamPresetName } from '../domain/upstreams.js';

interface UpstreamPreset {
  kind: UpstreamKind;
  issuer: string | null;
  authorizationEndpoint: string | null;
  tokenEndpoint: string | null;
  userinfoEndpoint: string | null;
  claimMapping: ClaimMapping | null;
  scopes: readonly string[];
}

export const UPSTREAM_PRESETS: Readonly<Record<UpstreamPresetName, UpstreamPreset>> = {
  // OpenID Connect: discovery at https://accounts.google.com/.well-known/openid-configuration
  // gives the endpoints and the keys; its ID token carries sub, name, email and email_verified.
  google: {
    kind: 'oidc',
    issuer: 'https://accounts.google.com',
    authorizationEndpoint: null,
    tokenEndpoint: null,
    userinfoEndpoint: null,
    claimMapping: null,
    scopes: ['openid', 'email', 'profile'],
  },
  // OAuth 2.0 without OpenID Connect. GET /users/@me answers the user object: `id` (a snowflake),
  // `username`, and with the `email` scope `email` and `verified` (whether that email is verified).
  discord: {
    kind: 'oauth2',
    issuer: null,
    authorizationEndpoint: 'https://discord.com/oauth2/authorize',
    tokenEndpoint: 'https://discord.com/api/oauth2/token',
    userinfoEndpoint: 'https://discord.com/api/users/@me',
    claimMapping: { subject: 'id', name: 'username', email: 'email', emailVerified: 'verified' },
    scopes: ['identify', 'email'],
  },
  // OAuth 2.0 without OpenID Connect. GET /user answers `id`, `login` and `email` (the public
  // address, often null), with no flag saying whether the address is verified: so no
  // emailVerified here. Which address is verified is in GET /user/emails (scope user:email).
  github: {
    kind: 'oauth2',
    issuer: null,
    authorizationEndpoint: 'https://github.com/login/oauth/authorize',
    tokenEndpoint: 'https://github.com/login/oauth/access_token',
    userinfoEndpoint: 'https://api.github.com/user',
    claimMapping: { subject: 'id', name: 'login', email: 'email', emailVerified: null },
    scopes: ['read:user', 'user:email'],
  },
};
