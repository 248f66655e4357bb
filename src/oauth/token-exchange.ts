import { InvalidGrant, InvalidInput, Unauthenticated } from '../domain/errors.js';
import type { CodeRecord } from '../store/types.js';
import { authenticateClient, type Deps } from './clients.js';
import { hashSecret, randomSecret, s256, TOKEN_BYTES } from './secrets.js';

/** Access tokens live 600 seconds (the interface's expires_in; docs/decisions.md#token-endpoint). */
export const TOKEN_TTL_SECONDS = 600;

export interface TokenParams {
  grant_type?: string;
  code?: string;
  client_id?: string;
  client_secret?: string;
  redirect_uri?: string;
  code_verifier?: string;
}

export interface TokenResult {
  access_token: string;
  token_type: 'Bearer';
  expires_in: 600;
}

interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  /** The challenge to send with a 401: Basic when the client tried Basic. */
  challenge: string | undefined;
}

const BASIC_CHALLENGE = 'Basic realm="oauth", charset="UTF-8"';

function decodeFormComponent(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    throw new Unauthenticated('Malformed Basic credentials', BASIC_CHALLENGE);
  }
}

/**
 * Client credentials from an HTTP Basic header (RFC 6749 2.3.1: id and secret form-encoded, then
 * base64) or from the body. Using both at once is refused, as RFC 6749 2.3 requires.
 */
function clientCredentials(params: TokenParams, authorization: string | undefined): ClientCredentials {
  const inBody = params.client_id !== undefined || params.client_secret !== undefined;
  if (authorization !== undefined) {
    const match = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(authorization.trim());
    if (!match?.[1]) throw new Unauthenticated('Authorization header must be HTTP Basic client credentials', BASIC_CHALLENGE);
    if (params.client_secret !== undefined) {
      throw new InvalidInput('Send client credentials either in the Authorization header or in the body, not both');
    }
    const decoded = Buffer.from(match[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new Unauthenticated('Malformed Basic credentials', BASIC_CHALLENGE);
    const clientId = decodeFormComponent(decoded.slice(0, colon));
    const clientSecret = decodeFormComponent(decoded.slice(colon + 1));
    if (params.client_id !== undefined && params.client_id !== clientId) {
      throw new InvalidInput('client_id in the body does not match the Authorization header');
    }
    return { clientId, clientSecret, challenge: BASIC_CHALLENGE };
  }
  if (!inBody) throw new Unauthenticated('Client authentication is required: send client_id and client_secret', BASIC_CHALLENGE);
  if (params.client_id === undefined) throw new Unauthenticated('client_id is required');
  if (params.client_secret === undefined) throw new Unauthenticated('client_secret is required');
  return { clientId: params.client_id, clientSecret: params.client_secret, challenge: undefined };
}

/**
 * Exchanges an authorization code for an access token (RFC 6749 4.1.3). A code is redeemed once;
 * a second redemption fails and revokes every token issued from it (RFC 6749 4.1.2).
 */
export async function exchangeCode(
  deps: Deps,
  params: TokenParams,
  authorization: string | undefined,
): Promise<TokenResult> {
  if (params.grant_type !== 'authorization_code') {
    throw new InvalidInput('Unsupported grant_type: only authorization_code is supported');
  }
  const client = clientCredentials(params, authorization);
  const app = await authenticateClient(deps.store, client.clientId, client.clientSecret, client.challenge);
  if (!params.code) throw new InvalidInput('code is required');

  const codeHash = hashSecret(params.code);
  const code = await deps.store.getCode(codeHash);
  if (!code || code.clientId !== app.clientId) {
    throw new InvalidGrant('Invalid authorization code');
  }
  const now = deps.now();
  if (code.usedAt !== null) return replayed(deps, code, now);
  if (code.expiresAt <= now) throw new InvalidGrant('Authorization code has expired');
  if (code.redirectUri !== null && params.redirect_uri !== undefined && params.redirect_uri !== code.redirectUri) {
    throw new InvalidGrant('redirect_uri does not match the one the code was issued for');
  }
  if (code.codeChallenge !== null) {
    if (params.code_verifier === undefined) throw new InvalidGrant('code_verifier is required for this code');
    if (s256(params.code_verifier) !== code.codeChallenge) {
      throw new InvalidGrant('code_verifier does not match the code_challenge');
    }
  } else if (params.code_verifier !== undefined) {
    // RFC 9700 2.1.1: a verifier for a code issued without a challenge is how a PKCE downgrade
    // (an attacker's code injected into a client that uses PKCE) shows itself; refuse it.
    throw new InvalidGrant('code_verifier was sent, but this code was issued without a code_challenge');
  }

  const accessToken = randomSecret(TOKEN_BYTES);
  const won = await deps.store.redeemCode(codeHash, now, {
    tokenHash: hashSecret(accessToken),
    clientId: app.clientId,
    userId: code.userId,
    scopes: code.scopes,
    codeHash,
    expiresAt: now + TOKEN_TTL_SECONDS * 1000,
    revokedAt: null,
    createdAt: now,
  });
  if (!won) {
    // The code expired in between, or another redemption committed first: this one is a replay.
    if ((await deps.store.getCode(codeHash))?.usedAt === null) throw new InvalidGrant('Authorization code has expired');
    return replayed(deps, code, now);
  }
  return { access_token: accessToken, token_type: 'Bearer', expires_in: TOKEN_TTL_SECONDS };
}

/** A second redemption of a code: revoke what the first one got, record it, refuse. */
async function replayed(deps: Deps, code: CodeRecord, now: number): Promise<never> {
  const revoked = await deps.store.revokeTokensOfCode(code.codeHash, now);
  deps.audit?.('code_replay_detected', { clientId: code.clientId, userId: code.userId, revokedTokens: revoked });
  throw new InvalidGrant('Authorization code has already been used; tokens issued from it are revoked');
}
