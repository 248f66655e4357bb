import { InvalidGrant, InvalidInput, UnsupportedGrantType } from '../domain/errors.js';
import type { CodeRecord } from '../domain/apps.js';
import { authenticateClientRequest, type Deps } from './clients.js';
import { hashSecret } from '../security/secrets.js';
import { s256 } from './secrets.js';
import { allowsRefresh } from './grant-types.js';
import { EXPIRES_IN_SECONDS, newTokenPair, signIdToken, type ExchangeDeps, type TokenParams, type TokenResult } from './tokens.js';

const CODE_BEFORE_CHANGE = "Authorization code was issued before the account's sign-in changed: sign in again";

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
  // A code made before a credential change that ends codes (docs/account.md#what-each-security-event-ends),
  // written after the change's transaction by a request that had read the old session.
  if (code.userCredentialsChangedAt !== undefined && code.createdAt < code.userCredentialsChangedAt) throw new InvalidGrant(CODE_BEFORE_CHANGE);
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

  // offline_access is granted only to an app allowed the refresh grant; it may have lost it since.
  const offline = code.scopes.includes('offline_access') && allowsRefresh(app);
  // The refresh token family a code starts is named by the code's hash.
  const pair = newTokenPair(
    deps,
    { clientId: app.clientId, userId: code.userId, scopes: code.scopes, codeHash, refresh: offline ? { familyId: code.codeHash, authTime: code.authTime, amr: code.amr } : null },
    now,
  );
  const result: TokenResult = { access_token: pair.accessToken, token_type: 'Bearer', expires_in: EXPIRES_IN_SECONDS };
  if (pair.refreshToken !== undefined) result.refresh_token = pair.refreshToken;
  const redemption = pair.refresh
    ? await deps.store.redeemCodeWithRefresh(codeHash, now, pair.access, pair.refresh)
    : await deps.store.redeemCode(codeHash, now, pair.access);
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
