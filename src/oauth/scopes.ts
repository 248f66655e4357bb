/** Scopes (docs/decisions.md#scopes): `userinfo` lets a token call whois; `email` adds the email and needs `userinfo`. */
export const SCOPES = ['userinfo', 'email'] as const;
export type Scope = (typeof SCOPES)[number];

export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  userinfo: 'See your user id, name and profile picture',
  email: 'See your email address',
};

/**
 * Parses a space-separated scope string. Returns the scopes in canonical order, or an error text
 * for an invalid scope request (unknown scope, or `email` without `userinfo`).
 */
export function parseScopes(raw: string): { scopes: Scope[] } | { error: string } {
  const parts = raw.split(' ').filter((s) => s !== '');
  for (const part of parts) {
    if (!(SCOPES as readonly string[]).includes(part)) return { error: `Unknown scope "${part}"` };
  }
  if (parts.includes('email') && !parts.includes('userinfo')) {
    return { error: 'The email scope requires the userinfo scope' };
  }
  return { scopes: SCOPES.filter((s) => parts.includes(s)) };
}
