import type { SessionMeta } from '../../domain/sessions.js';

/** Browser sessions, stored by the hash of their cookie's id. */
export interface SessionStore {
  /** Session data (JSON text) by the hash of its id; expired sessions are not returned. */
  getSession(idHash: string, now: number): Promise<string | undefined>;
  /**
   * Inserts or replaces a session; `userId` is whose it is (null while signed out); `meta` what
   * the account page lists of a signed-in session.
   */
  setSession(idHash: string, data: string, expiresAt: number, userId: number | null, meta?: SessionMeta | null): Promise<void>;
  /**
   * Writes back a session this request read, only while its row still exists and belongs to
   * `whileUserId` (null: to nobody): a session a security event ended (deleted, or a suspension's
   * marker) is never written again by a request that read it before. Whether it was written.
   */
  updateSession(idHash: string, data: string, expiresAt: number, userId: number | null, meta: SessionMeta | null | undefined, whileUserId: number | null): Promise<boolean>;
  /** A user's live sessions that have a public id, most recently seen first. */
  listUserSessions(userId: number, now: number): Promise<SessionMeta[]>;
  /** Ends one session of a user by its public id; false when the user has no such session. */
  deleteUserSession(userId: number, publicId: string): Promise<boolean>;
  deleteSession(idHash: string): Promise<void>;
}
