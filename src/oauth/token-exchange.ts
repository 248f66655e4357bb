import { InvalidGrant, InvalidInput, UnsupportedGrantType } from '../domain/errors.js';
import type { CodeRecord } from '../domain/apps.js';
import { idTokenClaims } from './claims.js';
import { authenticateClientRequest, type ClientAuthParams, type Deps } from './clients.js';
import type { KeyRing } from './keys.js';
import { hashSecret, randomSecret } from '../security/secrets.js';
import { s256, TOKEN_BYTES } from './secrets.js';
import { LIFETIMES } from '../domain/lifetimes.js';

/**
 * An access token's `expires_in`, fixed at 600 by the interface (docs/decisions.md#token-endpoint):
 * LIFETIMES.accessToken in seconds (test/docs/lifetimes.test.ts checks that they agree).
 */
export const EXPIRES_IN_SECONDS = 600;

interface TokenParams extends ClientAuthParams {
  grant_type?: string;
  code?: string;
  redirect_uri?: string;
  code_verifier?: string;
}

interface TokenResult {
  access_token: string;
  token_type: 'Bearer';
  expires_in: 600;
  /** Only when the code was granted `openid`. */
  id_token?: string;
}

interface ExchangeDeps extends Deps {
  keys: KeyRing;
  config: { publicUrl: string };
}

/**
 * Exchanges an authorization code for an access token (RFC 6749 4.1.3). A code is redeemed once;
 * a second redemption fails and revokes every token issued from it (RFC 6749 4.1.2).
 */
export async function exchangeCode(
  deps: ExchangeDeps,
  params: TokenParams,
  authorization: string | undefined,
): Promise<TokenResult> {
  if (params.grant_type !== 'authorization_code') {
    throw new UnsupportedGrantType('Unsupported grant_type: only authorization_code is supported');
  }
  // The app and the code in one read (docs/performance.md#the-token-exchange-on-postgresql).
  const codeHash = params.code ? hashSecret(params.code) : undefined;
  const { app, code } = await authenticateClientRequest(params, authorization, async (clientId) =>
    codeHash === undefined ? { app: await deps.store.getApp(clientId), code: undefined } : deps.store.getAppAndCode(clientId, codeHash),
  );
  if (codeHash === undefined) throw new InvalidInput('code is required');
  if (!code || code.clientId !== app.clientId) {
    throw new InvalidGrant('Invalid authorization code');
  }
  const now = deps.now();
  if (code.usedAt !== null) return replayed(deps, code, now);
  if (code.expiresAt <= now) throw new InvalidGrant('Authorization code has expired');
  if (code.redirectUri !== null && params.redirect_uri !== undefined && params.redirect_uri !== code.redirectUri) {
    throw new InvalidGrant('redirect_uri does not match the one the code was issued for');
  }
  if (code.redirectUri !== null && params.redirect_uri === undefined && !app.redirectUris.includes(code.redirectUri)) {
    // A loopback URI on a port the app never registered (RFC 8252 7.3): only the exact URI the
    // code went to proves the redeemer is the app that received it, so it must be repeated.
    throw new InvalidGrant('redirect_uri is required: this code was issued for a loopback redirect URI on a port of its own');
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
  const redemption = await deps.store.redeemCode(codeHash, now, {
    tokenHash: hashSecret(accessToken),
    clientId: app.clientId,
    userId: code.userId,
    scopes: code.scopes,
    codeHash,
    expiresAt: now + LIFETIMES.accessToken,
    revokedAt: null,
    createdAt: now,
  });
  // The code expired in between, or another redemption committed first: this one is a replay,
  // and the store has revoked what the first one got.
  if (redemption.outcome === 'expired') throw new InvalidGrant('Authorization code has expired');
  if (redemption.outcome === 'replayed') return refuseReplay(deps, code, redemption.revokedTokens);
  const result: TokenResult = { access_token: accessToken, token_type: 'Bearer', expires_in: EXPIRES_IN_SECONDS };
  if (code.scopes.includes('openid')) result.id_token = await idToken(deps, code, now);
  return result;
}

/** The ID token of a code granted `openid` (OpenID Connect Core 3.1.3.3), signed with the current key. */
async function idToken(deps: ExchangeDeps, code: CodeRecord, now: number): Promise<string> {
  const user = await deps.store.getUser(code.userId);
  // Deleting a user deletes their codes and tokens: only a deletion racing this exchange gets here.
  if (!user) throw new InvalidGrant('Invalid authorization code');
  const claims = idTokenClaims({
    user,
    scopes: code.scopes,
    clientId: code.clientId,
    issuer: deps.config.publicUrl,
    authTime: code.authTime,
    amr: code.amr,
    nonce: code.nonce,
    now,
  });
  return deps.keys.sign(claims);
}

/** A second redemption of a code: revoke what the first one got, record it, refuse. */
async function replayed(deps: Deps, code: CodeRecord, now: number): Promise<never> {
  return refuseReplay(deps, code, await deps.store.revokeTokensOfCode(code.codeHash, now));
}

function refuseReplay(deps: Deps, code: CodeRecord, revokedTokens: number): never {
  deps.audit?.('code_replay_detected', { clientId: code.clientId, userId: code.userId, revokedTokens });
  throw new InvalidGrant('Authorization code has already been used; tokens issued from it are revoked');
}
