/**
 * The authorization code grant (RFC 6749 4.1.3): an authorization code, from either flow, for an
 * access token (and a refresh token with `offline_access`, an ID token with `openid`). A code is
 * redeemed once; a second redemption fails and revokes every token issued from it (RFC 6749
 * 4.1.2).
 */
import { InvalidGrant, InvalidInput } from '../../domain/errors.js';
import type { AppRecord, CodeRecord } from '../../domain/apps.js';
import { hashSecret } from '../../security/secrets.js';
import type { Deps } from '../deps.js';
import { s256 } from '../secrets.js';
import { allowsRefresh } from '../grant-types.js';
import { EXPIRES_IN_SECONDS, newTokenPair, signIdToken, type ExchangeDeps, type TokenResult } from '../tokens.js';
import type { Grant } from './grant.js';

const CODE_BEFORE_CHANGE = "Authorization code was issued before the account's sign-in changed: sign in again";

/** The grant's fields: the code's hash (undefined for `''`, which the contract lets through), and what proves the redeemer. */
interface CodeFields {
  codeHash: string | undefined;
  redirectUri: string | undefined;
  codeVerifier: string | undefined;
}

export const authorizationCodeGrant: Grant<CodeFields, { app: AppRecord | undefined; code?: CodeRecord | undefined }> = {
  type: 'authorization_code',
  // Every app may use it (appGrantTypes keeps it in every list).
  notAllowed: 'This app may not use authorization codes: its grant_types lack authorization_code',
  fields(params) {
    // The words the contract's validator answered when `code` was required of every request.
    if (params.code === undefined) throw new InvalidInput('Body field code is required');
    return { codeHash: params.code ? hashSecret(params.code) : undefined, redirectUri: params.redirect_uri, codeVerifier: params.code_verifier };
  },
  // The app and the code in one read (docs/performance.md#the-token-exchange-on-postgresql).
  read: async (deps, clientId, { codeHash }) =>
    codeHash === undefined ? { app: await deps.store.apps.getApp(clientId) } : deps.store.apps.getAppAndCode(clientId, codeHash),
  issue: exchangeCode,
};

async function exchangeCode(
  deps: ExchangeDeps,
  { app, code }: { app: AppRecord; code?: CodeRecord | undefined },
  { codeHash, redirectUri, codeVerifier }: CodeFields,
): Promise<TokenResult> {
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
  if (code.redirectUri !== null && redirectUri !== undefined && redirectUri !== code.redirectUri) {
    throw new InvalidGrant('redirect_uri does not match the one the code was issued for');
  }
  if (code.redirectUri !== null && redirectUri === undefined && !app.redirectUris.includes(code.redirectUri)) {
    // A loopback URI on a port the app never registered (RFC 8252 7.3): only the exact URI the
    // code went to proves the redeemer is the app that received it, so it must be repeated.
    throw new InvalidGrant('redirect_uri is required: this code was issued for a loopback redirect URI on a port of its own');
  }
  if (code.codeChallenge !== null) {
    if (codeVerifier === undefined) throw new InvalidGrant('code_verifier is required for this code');
    if (s256(codeVerifier) !== code.codeChallenge) {
      throw new InvalidGrant('code_verifier does not match the code_challenge');
    }
  } else if (codeVerifier !== undefined) {
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
    ? await deps.store.refreshTokens.redeemCodeWithRefresh(codeHash, now, pair.access, pair.refresh)
    : await deps.store.apps.redeemCode(codeHash, now, pair.access);
  // The code expired in between, or another redemption committed first: this one is a replay,
  // and the store has revoked what the first one got.
  if (redemption.outcome === 'expired') throw new InvalidGrant('Authorization code has expired');
  // redeemCode revokes the first redemption's token in its own transaction; redeemCodeWithRefresh leaves it to replayed().
  if (redemption.outcome === 'replayed') return replayed(deps, code, now, offline ? undefined : redemption.revokedTokens);
  if (code.scopes.includes('openid')) {
    const user = await deps.store.users.getUser(code.userId);
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
  const ofCode = revoked ?? (await deps.store.apps.revokeTokensOfCode(code.codeHash, now));
  const revokedTokens = ofCode + (await deps.store.refreshTokens.revokeRefreshFamily(code.codeHash, now));
  deps.audit?.('code_replay_detected', { clientId: code.clientId, userId: code.userId, revokedTokens });
  throw new InvalidGrant('Authorization code has already been used; tokens issued from it are revoked');
}
