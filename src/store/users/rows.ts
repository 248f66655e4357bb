/** Rows of the users tables as records (src/domain/users.ts), and records as rows. */
import type { PublicUserRecord, UserRecord } from '../../domain/users.js';
import { type Row, num, numOrNull } from '../rows.js';

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
  'credentials_changed_at',
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
    credentialsChangedAt: numOrNull(r.credentials_changed_at),
    suspension:
      r.suspended_at === null || r.suspended_at === undefined
        ? null
        : { reason: String(r.suspension_reason), since: num(r.suspended_at), until: numOrNull(r.suspended_until) },
    bioRemoved:
      r.bio_removed_at === null || r.bio_removed_at === undefined ? null : { reason: String(r.bio_removed_reason), removedAt: num(r.bio_removed_at) },
  };
}
