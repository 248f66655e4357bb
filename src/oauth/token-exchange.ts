import { InvalidGrant, InvalidInput, UnsupportedGrantType } from '../domain/errors.js';
import type { AppRecord, CodeRecord, TokenRecord } from '../domain/apps.js';
import type { RefreshTokenRecord } from '../domain/refresh-tokens.js';
import { authenticateClientRequest, type Deps } from './clients.js';
import { hashSecret, randomSecret } from '../security/secrets.js';
import { s256, TOKEN_BYTES } from './secrets.js';
import { LIFETIMES } from '../domain/lifetimes.js';
import { allowsRefresh } from './grant-types.js';
import { EXPIRES_IN_SECONDS, signIdToken, type ExchangeDeps, type TokenParams, type TokenResult } from './tokens.js';

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
    // The seed's words, kept (its answers stay byte-identical); refresh_token never gets here (token-endpoint.ts).
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
  const token: TokenRecord = {
    tokenHash: hashSecret(accessToken),
    clientId: app.clientId,
    userId: code.userId,
    scopes: code.scopes,
    codeHash,
    expiresAt: now + LIFETIMES.accessToken,
    revokedAt: null,
    createdAt: now,
  };
  const result: TokenResult = { access_token: accessToken, token_type: 'Bearer', expires_in: EXPIRES_IN_SECONDS };
  // offline_access is granted only to an app allowed the refresh grant; it may have lost it since.
  const offline = code.scopes.includes('offline_access') && allowsRefresh(app);
  let redemption;
  if (offline) {
    result.refresh_token = randomSecret(TOKEN_BYTES);
    redemption = await deps.store.redeemCodeWithRefresh(codeHash, now, token, firstRefreshToken(deps, app, code, token, result.refresh_token, now));
  } else {
    redemption = await deps.store.redeemCode(codeHash, now, token);
  }
  // The code expired in between, or another redemption committed first: this one is a replay,
  // and the store has revoked what the first one got.
  if (redemption.outcome === 'expired') throw new InvalidGrant('Authorization code has expired');
  // redeemCode revokes the first redemption's token in its own transaction; redeemCodeWithRefresh leaves it to replayed().
  if (redemption.outcome === 'replayed') return replayed(deps, code, now, offline ? undefined : redemption.revokedTokens);
  if (code.scopes.includes('openid')) {
    const user = await deps.store.getUser(code.userId);
    // Deleting a user deletes their codes and tokens: only a deletion racing this exchange gets here.
    if (!user) throw new InvalidGrant('Invalid authorization code');
    result.id_token = await signIdToken(deps, { user, scopes: code.scopes, clientId: code.clientId, authTime: code.authTime, amr: code.amr, nonce: code.nonce }, now);
  }
  return result;
}

/** The first refresh token of the family a code starts: the family is named by the code's hash. */
function firstRefreshToken(deps: ExchangeDeps, app: AppRecord, code: CodeRecord, token: TokenRecord, refreshToken: string, now: number): RefreshTokenRecord {
  const familyExpiresAt = now + deps.config.refreshTokenAbsoluteSeconds * 1000;
  return {
    tokenHash: hashSecret(refreshToken),
    familyId: code.codeHash,
    clientId: app.clientId,
    userId: code.userId,
    scopes: code.scopes,
    authTime: code.authTime,
    amr: code.amr,
    accessTokenHash: token.tokenHash,
    familyExpiresAt,
    expiresAt: Math.min(now + deps.config.refreshTokenIdleSeconds * 1000, familyExpiresAt),
    usedAt: null,
    revokedAt: null,
    createdAt: now,
  };
}

/**
 * A second redemption of a code: revoke what the first one got (its access token, and the refresh
 * token family it started), record it, refuse. `revoked`: what the store revoked already.
 */
async function replayed(deps: Deps, code: CodeRecord, now: number, revoked?: number): Promise<never> {
  const ofCode = revoked ?? (await deps.store.revokeTokensOfCode(code.codeHash, now));
  const revokedTokens = ofCode + (await deps.store.revokeRefreshFamily(code.codeHash, now));
  deps.audit?.('code_replay_detected', { clientId: code.clientId, userId: code.userId, revokedTokens });
  throw new InvalidGrant('Authorization code has already been used; tokens issued from it are revoked');
}
