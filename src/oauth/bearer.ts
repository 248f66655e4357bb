import { Forbidden, Unauthenticated } from '../domain/errors.js';
import type { TokenWithUser } from '../domain/apps.js';
import type { Scope } from './scopes.js';
import { hashSecret } from '../security/secrets.js';
import type { Store } from '../store/types.js';

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

function challenge(error?: string, description?: string): string {
  const parts = ['realm="whois"'];
  if (error) parts.push(`error="${error}"`);
  if (description) parts.push(`error_description="${description}"`);
  return `Bearer ${parts.join(', ')}`;
}

function unauthorized(message: string, error?: string): Unauthenticated {
  return new Unauthenticated(message, challenge(error, error ? message : undefined));
}

/**
 * Resolves `Authorization: Bearer <token>` to the token and its user (RFC 6750,
 * docs/decisions.md#whois), checking expiry
 * against `now` on every call. Throws 401 with a WWW-Authenticate challenge otherwise.
 */
export async function authenticateBearer(
  store: Pick<Store, 'apps'>,
  authorization: string | undefined,
  now: number,
): Promise<TokenWithUser> {
  if (authorization === undefined || authorization.trim() === '') {
    throw unauthorized('Missing Authorization header');
  }
  const match = BEARER.exec(authorization);
  if (!match?.[1]) {
    throw unauthorized('Authorization header must be "Bearer <access token>"', 'invalid_request');
  }
  return authenticateAccessToken(store, match[1], now);
}

/**
 * Resolves an access token, however it was sent (the Authorization header, or RFC 6750 2.2's
 * `access_token` form field), to the token and its user; 401 with a challenge otherwise.
 */
export async function authenticateAccessToken(store: Pick<Store, 'apps'>, token: string, now: number): Promise<TokenWithUser> {
  const found = await store.apps.getTokenWithUser(hashSecret(token));
  if (!found) throw unauthorized('Invalid access token', 'invalid_token');
  if (found.token.revokedAt !== null) throw unauthorized('Access token has been revoked', 'invalid_token');
  if (found.token.expiresAt <= now) throw unauthorized('Access token has expired', 'invalid_token');
  return found;
}

/** 403 with an insufficient_scope challenge when the token lacks `scope`. */
export function requireScope(found: TokenWithUser, scope: Scope): void {
  if (!found.token.scopes.includes(scope)) {
    throw new Forbidden(`Access token lacks the ${scope} scope`, `Bearer realm="whois", error="insufficient_scope", scope="${scope}"`);
  }
}
