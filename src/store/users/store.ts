import type { NewUser, PublicUserRecord, UserPatch, UserRecord } from '../../domain/users.js';

/** Accounts: the users table (and the names of deleted accounts, which stay taken). */
export interface UserStore {
  countUsers(): Promise<number>;
  /** Throws UniqueViolation('name' | 'email', or 'upstreamIdentity' when its upstream identity is linked already); a retired name (of a deleted account) counts as taken. */
  createUser(user: NewUser, now: number): Promise<UserRecord>;
  getUser(id: number): Promise<UserRecord | undefined>;
  /** Only the public fields (the users/info read: the hot path reads no more than it returns). */
  getPublicUser(id: number): Promise<PublicUserRecord | undefined>;
  /**
   * The user's pfpTimestamp alone (the picture route's check, which reads no more): null when the
   * user has no picture, undefined when there is no such user.
   */
  getPfpTimestamp(id: number): Promise<number | null | undefined>;
  getUserByName(name: string): Promise<UserRecord | undefined>;
  getUserByEmail(email: string): Promise<UserRecord | undefined>;
  updateUser(id: number, patch: UserPatch): Promise<UserRecord | undefined>;
  /**
   * Sets the password hash of an account that has none (NO_PASSWORD) in one statement, so two
   * requests racing cannot both set one. False, changing nothing, when the user has a password or
   * does not exist.
   */
  setFirstPassword(id: number, passwordHash: string): Promise<boolean>;
  /**
   * Records a play heartbeat only if lastHeartbeat is still `expected` (compare-and-set, so two
   * concurrent heartbeats cannot both add the same minutes): sets lastHeartbeat to `now` and adds
   * `addMinutes` to playMinutes. Returns the updated user, or undefined when it lost the race.
   */
  recordHeartbeat(id: number, expected: number, now: number, addMinutes: number): Promise<UserRecord | undefined>;
  /**
   * Sets pfpTimestamp to `next` only if it is still `expected` (compare-and-set), so two
   * concurrent picture changes cannot both believe they won; raises pfpHighWater to `next`, and
   * sets profileUpdatedAt to `at` (default: `next`; unchanged when both are null).
   * Returns whether it was set.
   */
  swapPfpTimestamp(id: number, expected: number | null, next: number | null, at?: number): Promise<boolean>;
  /**
   * Deletes a user with everything of theirs in one transaction: grants, sessions, codes and
   * tokens, device authorizations they decided, passkeys, the authenticator app and its recovery codes, reports by and on them, the
   * apps and games they own (with those apps' codes, tokens, device authorizations and grants), and retires the name. The record of moderator actions
   * naming them stays (the operator's). Returns the deleted user (its picture files are the caller's), or undefined.
   */
  deleteUser(id: number, now: number): Promise<UserRecord | undefined>;
}
