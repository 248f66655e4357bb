/**
 * Scopes (docs/decisions.md#scopes): `userinfo` lets a token call whois; `email` adds the email and
 * needs `userinfo`. The list is the contract's `Scope` enum; this module adds the rules on it.
 */
import type { components } from '../../generated/api.js';
import { schemaEnum } from '../contract.js';

export type Scope = components['schemas']['Scope'];

/** Every scope, in the contract's order: the canonical order of a granted or requested scope list. */
export const SCOPES = schemaEnum('Scope');

/** The scope every grant carries: `email` needs it, and a request for no scope is refused. */
export const BASE_SCOPE: Scope = 'userinfo';

/** What the consent dialogs tell the user each scope lets the app do. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  userinfo: 'See your user id, name and profile picture',
  email: 'See your email address',
};

/** The scopes among `names`, in canonical order; anything else in `names` is left out. */
export function knownScopes(names: readonly string[]): Scope[] {
  return SCOPES.filter((s) => names.includes(s));
}

/**
 * Parses a space-separated scope string. Returns the scopes in canonical order, or an error text
 * for an invalid scope request (unknown scope, or `email` without `userinfo`).
 */
export function parseScopes(raw: string): { scopes: Scope[] } | { error: string } {
  const parts = raw.split(' ').filter((s) => s !== '');
  for (const part of parts) {
    if (!(SCOPES as readonly string[]).includes(part)) return { error: `Unknown scope "${part}"` };
  }
  if (parts.includes('email') && !parts.includes(BASE_SCOPE)) {
    return { error: 'The email scope requires the userinfo scope' };
  }
  return { scopes: knownScopes(parts) };
}
