/**
 * RFC 7009 token revocation and RFC 7662 introspection: what a client may do with a token it
 * holds, an access token or a refresh token. The access token is looked for first (the hot path,
 * with the app in one read); a refresh token only when no access token has that hash.
 */
import { Forbidden, InvalidInput } from '../domain/errors.js';
import type { AppRecord, TokenWithUser } from '../domain/apps.js';
import { authenticateClientRequest, type ClientAuthParams } from './client-authentication.js';
import type { Deps } from './deps.js';
import { seconds } from './claims.js';
import { hashSecret } from '../security/secrets.js';

interface TokenReferenceParams extends ClientAuthParams {
  token?: string;
  /** RFC 7009 2.1: only a hint; both kinds are looked for whatever it says, so it is ignored. */
  token_type_hint?: string;
}

/** The client's app and the token in one read (one round trip on PostgreSQL); the app alone without a token. */
async function appAndToken(deps: Deps, clientId: string, tokenHash: string | undefined): Promise<{ app: AppRecord | undefined; tokenWithUser: TokenWithUser | undefined }> {
  return tokenHash === undefined ? { app: await deps.store.apps.getApp(clientId), tokenWithUser: undefined } : deps.store.apps.getAppAndToken(clientId, tokenHash);
}

interface Revocation {
  clientId: string;
  /** Set when this request revoked a live token (for the audit trail); unset for the no-op answers. */
  userId?: number;
}

/**
 * Revokes the client's own token. Unknown, expired and already revoked tokens are a silent
 * success (RFC 7009 2.2), since the client's goal, a dead token, is reached either way; a token
 * of another client is refused and left alone, so a leaked token cannot be used by a third app
 * to sign a user out of a different one.
 */
export async function revokeAccessToken(
  deps: Deps,
  params: TokenReferenceParams,
  authorization: string | undefined,
): Promise<Revocation> {
  const tokenHash = params.token ? hashSecret(params.token) : undefined;
  const { app, tokenWithUser: found } = await authenticateClientRequest(params, authorization, (clientId) => appAndToken(deps, clientId, tokenHash));
  if (tokenHash === undefined) throw new InvalidInput('token is required');
  if (!found) return revokeRefreshToken(deps, app, tokenHash);
  if (found.token.clientId !== app.clientId) throw new Forbidden('This token was issued to another client');
  const now = deps.now();
  if (found.token.revokedAt !== null || found.token.expiresAt <= now) return { clientId: app.clientId };
  const revoked = await deps.store.apps.revokeToken(tokenHash, app.clientId, now);
  return revoked ? { clientId: app.clientId, userId: found.token.userId } : { clientId: app.clientId };
}

/**
 * RFC 7009 2.1 for a refresh token: it goes with its whole family (the sign-in's other refresh
 * tokens and every access token issued with them). Unknown, expired and revoked ones: no-op.
 */
async function revokeRefreshToken(deps: Deps, app: AppRecord, tokenHash: string): Promise<Revocation> {
  const refresh = await deps.store.refreshTokens.getRefreshToken(tokenHash);
  if (!refresh) return { clientId: app.clientId };
  if (refresh.clientId !== app.clientId) throw new Forbidden('This token was issued to another client');
  const now = deps.now();
  if (refresh.revokedAt !== null || refresh.expiresAt <= now) return { clientId: app.clientId };
  const revoked = await deps.store.refreshTokens.revokeRefreshFamily(refresh.familyId, now);
  return revoked > 0 ? { clientId: app.clientId, userId: refresh.userId } : { clientId: app.clientId };
}

type Introspection =
  | { active: false }
  | {
      active: true;
      scope: string;
      client_id: string;
      token_type?: 'Bearer';
      token_use?: 'refresh_token';
      exp: number;
      iat: number;
      sub: string;
      username: string;
    };


/**
 * RFC 7662: the token's state for its own client. Anything else, another client's token included,
 * is `{active: false}` and nothing more, so introspection cannot be used to probe other apps'
 * tokens (RFC 7662 2.2 and 4).
 */
export async function introspectAccessToken(
  deps: Deps,
  params: TokenReferenceParams,
  authorization: string | undefined,
): Promise<Introspection> {
  const tokenHash = params.token ? hashSecret(params.token) : undefined;
  // A public app has no secret, so anyone could introspect its tokens in its name: refused.
  const { app, tokenWithUser: found } = await authenticateClientRequest(params, authorization, (clientId) => appAndToken(deps, clientId, tokenHash), {
    publicApps: 'refuse',
  });
  if (tokenHash === undefined) throw new InvalidInput('token is required');
  const now = deps.now();
  if (!found) return introspectRefreshToken(deps, app, tokenHash, now);
  if (found.token.clientId !== app.clientId || found.token.revokedAt !== null || found.token.expiresAt <= now) {
    return { active: false };
  }
  return {
    active: true,
    scope: found.token.scopes.join(' '),
    client_id: found.token.clientId,
    token_type: 'Bearer',
    exp: seconds(found.token.expiresAt),
    iat: seconds(found.token.createdAt),
    sub: String(found.user.id),
    username: found.user.name,
  };
}

/** Introspection of a refresh token: live while unspent, unrevoked and before its idle expiry. */
async function introspectRefreshToken(deps: Deps, app: AppRecord, tokenHash: string, now: number): Promise<Introspection> {
  const refresh = await deps.store.refreshTokens.getRefreshToken(tokenHash);
  if (!refresh || refresh.clientId !== app.clientId || refresh.usedAt !== null || refresh.revokedAt !== null || refresh.expiresAt <= now) {
    return { active: false };
  }
  const user = await deps.store.users.getUser(refresh.userId);
  if (!user) return { active: false };
  return {
    active: true,
    scope: refresh.scopes.join(' '),
    client_id: refresh.clientId,
    token_use: 'refresh_token',
    exp: seconds(refresh.expiresAt),
    iat: seconds(refresh.createdAt),
    sub: String(user.id),
    username: user.name,
  };
}
