/** Rows of the refresh_tokens table as records (src/domain/refresh-tokens.ts), and records as rows. */
import type { RefreshTokenRecord } from '../../domain/refresh-tokens.js';
import { type Row, num, numOrNull, scopesOf } from '../rows.js';

export function toRefreshToken(r: Row): RefreshTokenRecord {
  return {
    tokenHash: String(r.token_hash),
    familyId: String(r.family_id),
    clientId: String(r.client_id),
    userId: num(r.user_id),
    scopes: scopesOf(r.scopes),
    authTime: num(r.auth_time),
    amr: typeof r.amr === 'string' ? r.amr.split(' ').filter((v) => v !== '') : null,
    accessTokenHash: String(r.access_token_hash),
    familyExpiresAt: num(r.family_expires_at),
    expiresAt: num(r.expires_at),
    usedAt: numOrNull(r.used_at),
    revokedAt: numOrNull(r.revoked_at),
    createdAt: num(r.created_at),
  };
}

export function refreshTokenRow(t: RefreshTokenRecord): Row {
  return {
    token_hash: t.tokenHash,
    family_id: t.familyId,
    client_id: t.clientId,
    user_id: t.userId,
    scopes: t.scopes.join(' '),
    auth_time: t.authTime,
    amr: t.amr === null ? null : t.amr.join(' '),
    access_token_hash: t.accessTokenHash,
    family_expires_at: t.familyExpiresAt,
    expires_at: t.expiresAt,
    used_at: t.usedAt,
    revoked_at: t.revokedAt,
    created_at: t.createdAt,
  };
}
