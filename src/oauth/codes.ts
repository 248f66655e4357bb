import { Forbidden, InvalidInput, NotFound } from '../domain/errors.js';
import { refuseSuspended } from '../accounts/suspensions.js';
import { PUBLIC_CLIENT_NEEDS_PKCE } from './clients.js';
import type { Deps } from './deps.js';
import { redirectUriMatches } from './redirect-uris.js';
import { parseScopes, type Scope } from './scopes.js';
import { hashSecret, randomSecret } from '../security/secrets.js';
import { CODE_BYTES } from './secrets.js';
import { LIFETIMES } from '../domain/lifetimes.js';

const EMAIL_NOT_VERIFIED = 'The email scope needs a verified email address, and this user has not verified theirs yet';
/** An S256 challenge is the base64url SHA-256 of the verifier: exactly 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export interface CodeRequest {
  userId: number;
  clientId: string;
  /** Space-separated scopes. */
  scope: string;
  /** The redirect_uri of the traditional flow the code is bound to; null for the game flow. */
  redirectUri: string | null;
  /** PKCE S256 challenge, or null. */
  codeChallenge: string | null;
  /** The OpenID Connect request's nonce (at most 512 characters), or null. */
  nonce?: string | null;
  /** When the person signed in to the session asking (the ID token's auth_time); default now (the operator CLI). */
  authTime?: number;
  /**
   * How the person signed in to that session (RFC 8176 values: the ID token's `amr` and `acr`);
   * none when no sign-in stands behind the code (the operator CLI: its ID token has neither).
   */
  amr?: readonly string[];
}

/**
 * Issues a single-use authorization code bound to user, client, scopes, redirect_uri and PKCE
 * challenge. Returns the code; only its hash is stored.
 */
export async function issueCode(deps: Deps, req: CodeRequest): Promise<{ code: string; scopes: Scope[] }> {
  const parsed = parseScopes(req.scope);
  if ('error' in parsed) throw new InvalidInput(parsed.error);
  const app = await deps.store.apps.getApp(req.clientId);
  if (!app) throw new NotFound(`App ${req.clientId} not found`);
  const user = await deps.store.users.getUser(req.userId);
  if (!user) throw new NotFound(`User ${req.userId} not found`);
  // Nor for a suspended account (docs/moderation.md#suspension), whichever path asks.
  refuseSuspended(user, deps.now());
  // Every code passes here (consent page, game flow, operator CLI), so no path can vouch for an
  // address nobody has proven.
  if (parsed.scopes.includes('email') && user.emailVerifiedAt === null) throw new Forbidden(EMAIL_NOT_VERIFIED);
  if (req.redirectUri !== null && !app.redirectUris.some((registered) => redirectUriMatches(registered, req.redirectUri!))) {
    throw new InvalidInput(`Redirect URI is not registered for this app: ${req.redirectUri}`);
  }
  if (req.codeChallenge !== null && !S256_CHALLENGE.test(req.codeChallenge)) {
    throw new InvalidInput('code_challenge must be an S256 challenge: 43 base64url characters');
  }
  // Every code of a public app carries a challenge, whichever path issues it (docs/oauth.md#public-clients).
  if (app.public && req.codeChallenge === null) throw new InvalidInput(PUBLIC_CLIENT_NEEDS_PKCE);
  const code = randomSecret(CODE_BYTES);
  const now = deps.now();
  await deps.store.apps.createCode({
    codeHash: hashSecret(code),
    clientId: app.clientId,
    userId: req.userId,
    scopes: parsed.scopes,
    redirectUri: req.redirectUri,
    codeChallenge: req.codeChallenge,
    nonce: req.nonce ?? null,
    authTime: req.authTime ?? now,
    amr: req.amr === undefined ? null : [...req.amr],
    expiresAt: now + LIFETIMES.authorizationCode,
    usedAt: null,
    createdAt: now,
  });
  return { code, scopes: parsed.scopes };
}
