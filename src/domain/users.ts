/** Accounts: the records the domain, the store and the pages share. */
/** The fields of a user anyone may read (users/info): no email, password or bookkeeping. */
export type PublicUserRecord = Pick<
  UserRecord,
  'id' | 'name' | 'bio' | 'flairs' | 'equippedFlair' | 'playMinutes' | 'lastHeartbeat' | 'modLevel' | 'pfpTimestamp'
>;

export interface UserRecord {
  id: number;
  name: string;
  email: string;
  passwordHash: string;
  bio: string;
  flairs: string[];
  equippedFlair: string;
  playMinutes: number;
  lastHeartbeat: number;
  modLevel: number;
  /** ms since epoch; null when the user has no picture. */
  pfpTimestamp: number | null;
  /** The largest pfpTimestamp this user ever had (0 if none); it survives a removal. */
  pfpHighWater: number;
  /** When the current email address was proven by a link (ms since epoch); null while it is not. */
  emailVerifiedAt: number | null;
  /** When a claim of the OpenID `profile` scope last changed (the picture; names never change). */
  profileUpdatedAt: number;
  createdAt: number;
  /**
   * The last change of a credential, or sign-out of every browser (ms since epoch; null: none):
   * what was issued before it is refused (src/domain/security-events.ts `credentialChange`).
   */
  credentialsChangedAt: number | null;
  /**
   * The suspension a moderator set (docs/moderation.md); null when none was. One whose `until` has
   * passed is over (src/moderation/moderation.ts activeSuspension), though it stays here.
   */
  suspension: SuspensionRecord | null;
  /** Why and when a moderator emptied the bio; null once the user writes a new one. */
  bioRemoved: { reason: string; removedAt: number } | null;
}

export interface SuspensionRecord {
  reason: string;
  since: number;
  /** When it ends by itself (ms since epoch); null: until lifted. */
  until: number | null;
}

export interface NewUser {
  name: string;
  email: string;
  passwordHash: string;
  /** Set for users whose address needs no proof (operator CLI, demo data); unverified when left out. */
  emailVerifiedAt?: number | null;
  /** An account made through an upstream identity provider: that identity, linked in the same transaction. */
  upstreamIdentity?: { upstreamSlug: string; subject: string; email: string | null };
}

/**
 * The password hash of an account with no password (one made through an upstream identity
 * provider): never a `scrypt$...` string, so no password ever verifies against it (Django's
 * unusable password).
 */
export const NO_PASSWORD = '!';

/** Whether the account has a password to sign in with. */
export function hasPassword(user: { passwordHash: string }): boolean {
  return user.passwordHash !== NO_PASSWORD;
}

/**
 * Never the last way in: an account without a password keeps at least one passkey or linked
 * identity. Whether removing one of the `sameKind` it has (its passkeys, or its links) would break
 * that; `otherKind` counts the other kind, asked only when it matters. Said before the person is
 * asked to confirm (such an account has no password to give); the store decides again, atomically
 * (src/store/users/ways-in.ts).
 */
export async function isLastWayIn(user: { passwordHash: string }, sameKind: number, otherKind: () => Promise<number>): Promise<boolean> {
  return !hasPassword(user) && sameKind === 1 && (await otherKind()) === 0;
}

export type UserPatch = Partial<
  Pick<UserRecord, 'bio' | 'flairs' | 'equippedFlair' | 'playMinutes' | 'lastHeartbeat' | 'modLevel'>
>;

/** A user named by id and name (names never change, so a record keeps them past the account). */
export interface UserName {
  id: number;
  name: string;
}
