/**
 * Scopes (docs/decisions.md#scopes): `userinfo` lets a token call whois; `openid` makes the
 * exchange return an ID token and lets the token call the UserInfo endpoint; `profile` adds the
 * name, picture and updated_at claims and needs `openid`; `email` adds the email and needs
 * `userinfo` or `openid`; `offline_access` adds a refresh token, for an app allowed the refresh
 * grant (src/oauth/grant-types.ts). A request needs `userinfo` or `openid`. The list is the contract's
 * `Scope` enum; this module adds the rules on it.
 */
import type { components } from '../../generated/api.js';
import { schemaEnum } from '../contract.js';

export type Scope = components['schemas']['Scope'];

/** Every scope, in the contract's order: the canonical order of a granted or requested scope list. */
export const SCOPES = schemaEnum('Scope');

/** The scopes a grant is built on: every request has one of them. */
const BASE_SCOPES: readonly Scope[] = ['userinfo', 'openid'];

/** What the consent dialogs tell the user each scope lets the app do. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  userinfo: 'See your user id, name and profile picture',
  email: 'See your email address',
  openid: 'Sign you in with your account (your user id)',
  profile: 'See your name, profile picture and when you last changed them',
  offline_access: 'Stay signed in to this app, even when you are away',
};

/** The scopes among `names`, in canonical order; anything else in `names` is left out. */
export function knownScopes(names: readonly string[]): Scope[] {
  return SCOPES.filter((s) => names.includes(s));
}

/**
 * Parses a space-separated scope string. Returns the scopes in canonical order (an empty list
 * for an empty string), or an error text for an invalid scope request: an unknown scope, `email`
 * without `userinfo` or `openid`, `profile` without `openid`.
 */
export function parseScopes(raw: string): { scopes: Scope[] } | { error: string } {
  const parts = raw.split(' ').filter((s) => s !== '');
  for (const part of parts) {
    if (!(SCOPES as readonly string[]).includes(part)) return { error: `Unknown scope "${part}"` };
  }
  const based = BASE_SCOPES.some((s) => parts.includes(s));
  // The seed's words, kept: adding `userinfo` does make such a request valid (so does `openid`).
  if (parts.includes('email') && !based) return { error: 'The email scope requires the userinfo scope' };
  if (parts.includes('profile') && !parts.includes('openid')) return { error: 'The profile scope requires the openid scope' };
  if (parts.length > 0 && !based) return { error: 'The request needs the userinfo or openid scope' };
  return { scopes: knownScopes(parts) };
}

/**
 * The game flow's rule (docs/decisions.md#game-flow): scopes out of userinfo, openid and profile
 * (never email: the play page's dialog does not offer it), each once, in canonical order, valid
 * as a request. `["userinfo"]`, the seed's only choice, is one of them.
 */
export function gameScopesProblem(scopes: readonly string[]): string | undefined {
  const rule = 'The game flow grants "userinfo", "openid" and "profile" (never "email"), in this order, and needs "userinfo" or "openid"';
  const canonical = knownScopes(scopes);
  if (scopes.length === 0 || canonical.length !== scopes.length || canonical.some((s, i) => s !== scopes[i])) return rule;
  // Neither email nor offline_access: the play page's dialog offers neither (the rule's words are the seed's).
  if (canonical.includes('email') || canonical.includes('offline_access')) return rule;
  return 'error' in parseScopes(canonical.join(' ')) ? rule : undefined;
}
