/**
 * The refresh grant (RFC 6749 section 6; OpenID Connect Core section 12): a refresh token buys a
 * new access token, a new refresh token (rotation, RFC 9700 section 4.14.2) and, with `openid`, a
 * new ID token for the same sign-in. The one used is spent; presenting it again shows that two
 * parties hold it, so the whole family (every refresh and access token of that sign-in) is
 * revoked, recorded and told to the account's owner (docs/oauth.md#refresh-tokens).
 */
import type { AppRecord } from '../../domain/apps.js';
import { InvalidGrant, InvalidInput, InvalidScope } from '../../domain/errors.js';
import type { RefreshTokenRecord } from '../../domain/refresh-tokens.js';
import { hashSecret } from '../../security/secrets.js';
import { parseScopes } from '../scopes.js';
import { EXPIRES_IN_SECONDS, newTokenPair, signIdToken, type ExchangeDeps, type TokenResult } from '../tokens.js';
import type { Grant } from './grant.js';

const REFRESH_TOKEN_REUSED = 'Refresh token has already been used; every token of this sign-in is revoked';

interface RefreshFields {
  tokenHash: string;
  /** Fewer scopes for the new access token. */
  scope: string | undefined;
}

export const refreshTokenGrant: Grant<RefreshFields, { app: AppRecord | undefined }> = {
  type: 'refresh_token',
  notAllowed: 'This app may not use refresh tokens: its grant_types lack refresh_token',
  fields(params) {
    if (params.refresh_token === undefined) throw new InvalidInput('Body field refresh_token is required');
    return { tokenHash: hashSecret(params.refresh_token), scope: params.scope };
  },
  read: async (deps, clientId) => ({ app: await deps.store.apps.getApp(clientId) }),
  issue: refresh,
};

async function refresh(deps: ExchangeDeps, { app }: { app: AppRecord }, { tokenHash, scope }: RefreshFields): Promise<TokenResult> {
  const found = await deps.store.refreshTokens.getRefreshToken(tokenHash);
  // Another app's token is as unknown as none (RFC 6749 6: bound to the client it was issued to).
  if (!found || found.clientId !== app.clientId) throw new InvalidGrant('Invalid refresh token');
  const now = deps.now();
  if (found.revokedAt !== null) throw new InvalidGrant('Refresh token has been revoked');
  if (found.usedAt === null && found.expiresAt <= now) throw new InvalidGrant('Refresh token has expired');
  const scopes = narrowedScopes(found, scope);

  // The same family, to its absolute expiry; the refresh token keeps every scope of the sign-in.
  const { accessToken, access, refreshToken, refresh } = newTokenPair(
    deps,
    {
      clientId: app.clientId,
      userId: found.userId,
      scopes: found.scopes,
      accessScopes: scopes,
      codeHash: null,
      refresh: { familyId: found.familyId, authTime: found.authTime, amr: found.amr, familyExpiresAt: found.familyExpiresAt },
    },
    now,
  );
  // A spent token goes through the rotation too: its refusal and the family's revocation are one
  // transaction there, whether it was spent long ago or by a request racing this one.
  const rotation = await deps.store.refreshTokens.rotateRefreshToken(tokenHash, now, { refresh, access });
  if (rotation.outcome === 'reused') {
    deps.audit?.('refresh_token_reuse_detected', { clientId: app.clientId, userId: found.userId, revokedTokens: rotation.revokedTokens });
    throw new InvalidGrant(REFRESH_TOKEN_REUSED);
  }
  // Expired or revoked between the read and the rotation.
  if (rotation.outcome === 'dead') throw new InvalidGrant('Invalid refresh token');

  const result: TokenResult = { access_token: accessToken, token_type: 'Bearer', expires_in: EXPIRES_IN_SECONDS, refresh_token: refreshToken };
  if (scopes.includes('openid')) {
    const user = await deps.store.users.getUser(found.userId);
    // Deleting a user deletes their refresh tokens: only a deletion racing this refresh gets here.
    if (!user) throw new InvalidGrant('Invalid refresh token');
    // OpenID Connect Core 12.2: the same sub, aud and auth_time; a new iat; no nonce (none was sent).
    result.id_token = await signIdToken(deps, { user, scopes, clientId: app.clientId, authTime: found.authTime, amr: found.amr, nonce: null }, now);
  }
  return result;
}

/**
 * The scopes of the new access token: `scope` when sent (RFC 6749 6: none beyond what the sign-in
 * was granted), all of the family's otherwise. The refresh token keeps all of them either way.
 */
function narrowedScopes(found: RefreshTokenRecord, scope: string | undefined): string[] {
  const asked = (scope ?? '').split(' ').filter((s) => s !== '');
  if (asked.length === 0) return found.scopes;
  const extra = asked.find((s) => !found.scopes.includes(s));
  if (extra !== undefined) throw new InvalidScope(`Scope "${extra}" was not granted to this sign-in`);
  // Fewer scopes still make a request the authorization endpoint would take (email needs userinfo or openid...).
  const parsed = parseScopes(asked.join(' '));
  if ('error' in parsed) throw new InvalidScope(parsed.error);
  return parsed.scopes;
}
