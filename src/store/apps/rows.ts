/** Rows of the apps tables as records (src/domain/apps.ts), and records as rows. */
import { GRANT_TYPES, type AppPatch, type AppRecord, type CodeRecord, type GrantType, type TokenRecord, type TokenWithUser } from '../../domain/apps.js';
import { type Row, num, numOrNull, scopesOf } from '../rows.js';

/** Every apps column toApp reads. */
export const APP_COLUMNS = ['client_id', 'secret_hash', 'public', 'owner_id', 'name', 'redirect_uris', 'post_logout_redirect_uris', 'grant_types', 'created_at'];

/** The space-separated grant_types column: the known grants it names, in the contract's order. */
function grantTypesOf(value: unknown): GrantType[] {
  const names = typeof value === 'string' ? value.split(' ') : ['authorization_code'];
  return GRANT_TYPES.filter((g) => names.includes(g));
}

export function toApp(r: Row): AppRecord {
  return {
    clientId: String(r.client_id),
    secretHash: (r.secret_hash as string | null) ?? null,
    // SQLite has no boolean: 0 or 1.
    public: r.public === true || r.public === 1,
    ownerId: num(r.owner_id),
    name: String(r.name),
    redirectUris: JSON.parse(String(r.redirect_uris)) as string[],
    postLogoutRedirectUris: JSON.parse(String(r.post_logout_redirect_uris)) as string[],
    grantTypes: grantTypesOf(r.grant_types),
    createdAt: num(r.created_at),
  };
}

/** The columns a patch changes (none for an empty one). */
export function appPatchRow(patch: AppPatch): Row {
  const row: Row = {};
  if (patch.name !== undefined) row.name = patch.name;
  if (patch.redirectUris !== undefined) row.redirect_uris = JSON.stringify(patch.redirectUris);
  if (patch.postLogoutRedirectUris !== undefined) row.post_logout_redirect_uris = JSON.stringify(patch.postLogoutRedirectUris);
  if (patch.grantTypes !== undefined) row.grant_types = patch.grantTypes.join(' ');
  return row;
}

/** Every auth_codes column toCode reads. */
export const CODE_COLUMNS = [
  'code_hash',
  'client_id',
  'user_id',
  'scopes',
  'redirect_uri',
  'code_challenge',
  'nonce',
  'auth_time',
  'amr',
  'expires_at',
  'used_at',
  'created_at',
  // The user's, read with the code (CodeRecord.userCredentialsChangedAt): the reads join users as u.
  'u.credentials_changed_at as user_credentials_changed_at',
];

/** SqliteStore's read of a code with its user's last credential change. */
export const CODE_WITH_USER_SQL =
  'select c.*, u.credentials_changed_at as user_credentials_changed_at from auth_codes c left join users u on u.id = c.user_id where c.code_hash = ?';

export function toCode(r: Row): CodeRecord {
  return {
    codeHash: String(r.code_hash),
    clientId: String(r.client_id),
    userId: num(r.user_id),
    scopes: scopesOf(r.scopes),
    redirectUri: (r.redirect_uri as string | null) ?? null,
    codeChallenge: (r.code_challenge as string | null) ?? null,
    nonce: (r.nonce as string | null) ?? null,
    authTime: num(r.auth_time ?? r.created_at),
    amr: typeof r.amr === 'string' ? r.amr.split(' ').filter((v) => v !== '') : null,
    expiresAt: num(r.expires_at),
    usedAt: numOrNull(r.used_at),
    createdAt: num(r.created_at),
    ...(r.user_credentials_changed_at === null || r.user_credentials_changed_at === undefined ? {} : { userCredentialsChangedAt: num(r.user_credentials_changed_at) }),
  };
}

/** The access_tokens row of a token, as both stores insert it (named for SqliteStore's `@column` parameters). */
export function tokenRow(t: TokenRecord): Row {
  return {
    token_hash: t.tokenHash,
    client_id: t.clientId,
    user_id: t.userId,
    scopes: t.scopes.join(' '),
    code_hash: t.codeHash,
    expires_at: t.expiresAt,
    revoked_at: t.revokedAt,
    created_at: t.createdAt,
  };
}

/** What whois reads (access_tokens as t, users as u): the token's columns it checks and the user's it answers with. */
export const TOKEN_WITH_USER_COLUMNS = [
  't.client_id',
  't.user_id',
  't.scopes',
  't.expires_at',
  't.revoked_at',
  't.created_at',
  'u.name as user_name',
  'u.email as user_email',
  'u.pfp_timestamp as user_pfp_timestamp',
];

/** A row of TOKEN_WITH_USER_COLUMNS. */
export function toTokenWithUser(row: Row): TokenWithUser {
  return {
    token: {
      clientId: String(row.client_id),
      userId: num(row.user_id),
      scopes: scopesOf(row.scopes),
      expiresAt: num(row.expires_at),
      revokedAt: numOrNull(row.revoked_at),
      createdAt: num(row.created_at),
    },
    user: {
      id: num(row.user_id),
      name: String(row.user_name),
      email: String(row.user_email),
      pfpTimestamp: numOrNull(row.user_pfp_timestamp),
    },
  };
}
