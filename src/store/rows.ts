/**
 * Rows and records: how the tables' columns map to the Store's plain objects and back, shared by
 * both implementations (KnexStore, and SqliteStore's prepared statements), and the guard every
 * lookup of either applies to its keys first.
 */
import type {
  AppRecord,
  CodeRecord,
  EmailLinkPurpose,
  EmailLinkRecord,
  GameWithAuthor,
  GrantRecord,
  GrantWithApp,
  ModerationActionKind,
  ModerationActionRecord,
  NewModerationAction,
  PasskeyRecord,
  PublicUserRecord,
  ReportOutcome,
  ReportReason,
  ReportRecord,
  SessionMeta,
  SignInRecord,
  SigningKeyRecord,
  TokenRecord,
  TokenWithUser,
  TotpRecord,
  UserRecord,
} from './types.js';

/** A row as either driver returns it: PostgreSQL's bigint columns come back as strings, hence num(). */
export type Row = Record<string, unknown>;

/**
 * The input guard, one rule for every lookup of both stores: each string and each id a method is
 * given to find rows by is checked first, with isRowKey or isRowId, and a value no row can hold
 * answers as "not found" (undefined, false, 0, [] or nothing done) without a query. PostgreSQL
 * would refuse such a query (an error, so a 500) where SQLite answers "no row": its text cannot
 * hold NUL, and its integer columns cannot be compared with a number beyond their range. The rule
 * is for lookups; what inserts and updates store is the domain's to validate.
 */
export const isRowKey = (key: string): boolean => !key.includes('\u0000');
/** Ids are 32-bit integer columns (`increments`), counted from 1 (the rule: isRowKey). */
export const isRowId = (id: number): boolean => Number.isInteger(id) && id >= 1 && id <= 2_147_483_647;

export const num = (v: unknown): number => Number(v);
export const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
/** Scopes are stored space-separated, as OAuth writes them. */
const scopesOf = (v: unknown): string[] => (typeof v === 'string' && v !== '' ? v.split(' ') : []);

/** The users columns behind PublicUserRecord: the users/info read selects no more. */
export const PUBLIC_USER_COLUMNS = ['id', 'name', 'bio', 'flairs', 'equipped_flair', 'play_minutes', 'last_heartbeat', 'mod_level', 'pfp_timestamp'];

export function toPublicUserRecord(r: Row): PublicUserRecord {
  return {
    id: num(r.id),
    name: String(r.name),
    bio: String(r.bio),
    flairs: JSON.parse(String(r.flairs)) as string[],
    equippedFlair: String(r.equipped_flair),
    playMinutes: num(r.play_minutes),
    lastHeartbeat: num(r.last_heartbeat),
    modLevel: num(r.mod_level),
    pfpTimestamp: numOrNull(r.pfp_timestamp),
  };
}

/** Every users column toUser reads (PostgresStore's prepared read names its columns). */
export const USER_COLUMNS = [
  ...PUBLIC_USER_COLUMNS,
  'email',
  'password_hash',
  'pfp_high_water',
  'email_verified_at',
  'profile_updated_at',
  'created_at',
  'suspension_reason',
  'suspended_at',
  'suspended_until',
  'bio_removed_reason',
  'bio_removed_at',
];

export function toUser(r: Row): UserRecord {
  return {
    ...toPublicUserRecord(r),
    email: String(r.email),
    passwordHash: String(r.password_hash),
    pfpHighWater: num(r.pfp_high_water),
    emailVerifiedAt: numOrNull(r.email_verified_at),
    profileUpdatedAt: num(r.profile_updated_at ?? r.created_at),
    createdAt: num(r.created_at),
    suspension:
      r.suspended_at === null || r.suspended_at === undefined
        ? null
        : { reason: String(r.suspension_reason), since: num(r.suspended_at), until: numOrNull(r.suspended_until) },
    bioRemoved:
      r.bio_removed_at === null || r.bio_removed_at === undefined ? null : { reason: String(r.bio_removed_reason), removedAt: num(r.bio_removed_at) },
  };
}

/** A reports row with its users' names (`reporter_name`, `target_name`, `closed_by_name`). */
export function toReport(r: Row): ReportRecord {
  const closedBy = numOrNull(r.closed_by);
  const closedByName = typeof r.closed_by_name === 'string' ? r.closed_by_name : null;
  return {
    id: num(r.id),
    reporter: { id: num(r.reporter_id), name: String(r.reporter_name) },
    target: { id: num(r.target_id), name: String(r.target_name) },
    reason: String(r.reason) as ReportReason,
    text: (r.text as string | null) ?? null,
    createdAt: num(r.created_at),
    closedAt: numOrNull(r.closed_at),
    closedBy: closedBy === null || closedByName === null ? null : { id: closedBy, name: closedByName },
    outcome: (r.outcome as ReportOutcome | null) ?? null,
  };
}

export function moderationActionRow(a: NewModerationAction): Row {
  return {
    moderator_id: a.moderator?.id ?? null,
    moderator_name: a.moderator?.name ?? null,
    target_id: a.target.id,
    target_name: a.target.name,
    action: a.action,
    reason: a.reason,
    until: a.until,
    mod_level: a.modLevel,
    report_id: a.reportId,
    outcome: a.outcome,
    created_at: a.createdAt,
  };
}

export function toModerationAction(r: Row): ModerationActionRecord {
  const moderatorId = numOrNull(r.moderator_id);
  return {
    id: num(r.id),
    moderator: moderatorId === null ? null : { id: moderatorId, name: String(r.moderator_name) },
    target: { id: num(r.target_id), name: String(r.target_name) },
    action: String(r.action) as ModerationActionKind,
    reason: (r.reason as string | null) ?? null,
    until: numOrNull(r.until),
    modLevel: numOrNull(r.mod_level),
    reportId: numOrNull(r.report_id),
    outcome: (r.outcome as ReportOutcome | null) ?? null,
    createdAt: num(r.created_at),
  };
}

/** Every apps column toApp reads. */
export const APP_COLUMNS = ['client_id', 'secret_hash', 'public', 'owner_id', 'name', 'redirect_uris', 'post_logout_redirect_uris', 'created_at'];

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
    createdAt: num(r.created_at),
  };
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
];

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
  };
}

export function toSigningKey(r: Row): SigningKeyRecord {
  return {
    kid: String(r.kid),
    alg: 'RS256',
    publicJwk: String(r.public_jwk),
    privateJwe: String(r.private_jwe),
    createdAt: num(r.created_at),
    retiredAt: numOrNull(r.retired_at),
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

/** A games row joined with its author's name (`author_name`). */
export function toGame(r: Row): GameWithAuthor {
  return {
    id: num(r.id),
    authorId: num(r.author_id),
    title: String(r.title),
    url: String(r.url),
    createdAt: num(r.created_at),
    authorName: String(r.author_name),
  };
}

export function toGrant(r: Row): GrantRecord {
  return {
    userId: num(r.user_id),
    clientId: String(r.client_id),
    scopes: scopesOf(r.scopes),
    createdAt: num(r.created_at),
    lastUsedAt: num(r.last_used_at),
  };
}

/** A grants row joined with its app's name and owner (`app_name`, `owner_id`, `owner_name`). */
export function toGrantWithApp(r: Row): GrantWithApp {
  return { ...toGrant(r), appName: String(r.app_name), ownerId: num(r.owner_id), ownerName: String(r.owner_name) };
}

export function toSessionMeta(r: Row): SessionMeta {
  return {
    publicId: String(r.public_id),
    startedAt: num(r.started_at),
    lastSeenAt: num(r.last_seen_at),
    userAgent: (r.user_agent as string | null) ?? null,
  };
}

export function toEmailLink(r: Row): EmailLinkRecord {
  return {
    tokenHash: String(r.token_hash),
    userId: num(r.user_id),
    purpose: String(r.purpose) as EmailLinkPurpose,
    email: (r.email as string | null) ?? null,
    expiresAt: num(r.expires_at),
    usedAt: numOrNull(r.used_at),
    createdAt: num(r.created_at),
  };
}

export function toSignIn(r: Row): SignInRecord {
  return { at: num(r.at), ip: String(r.ip), userAgent: String(r.user_agent) };
}

export function toPasskey(r: Row): PasskeyRecord {
  return {
    id: num(r.id),
    userId: num(r.user_id),
    credentialId: String(r.credential_id),
    publicKey: String(r.public_key),
    counter: num(r.counter),
    transports: JSON.parse(String(r.transports)) as string[],
    deviceType: r.device_type === 'multiDevice' ? 'multiDevice' : 'singleDevice',
    backedUp: r.backed_up === true || r.backed_up === 1,
    name: String(r.name),
    createdAt: num(r.created_at),
    lastUsedAt: numOrNull(r.last_used_at),
  };
}
export function toTotp(r: Row): TotpRecord {
  return {
    userId: num(r.user_id),
    secretJwe: String(r.secret_jwe),
    confirmedAt: numOrNull(r.confirmed_at),
    lastStep: numOrNull(r.last_step),
    createdAt: num(r.created_at),
  };
}
