/** Browser sessions: the records the domain, the store and the pages share. */
/** What the account page shows of a signed-in session; never its cookie value or hash. */
export interface SessionMeta {
  /** Random, stable for the session's life; the address of "sign out this session". */
  publicId: string;
  startedAt: number;
  lastSeenAt: number;
  userAgent: string | null;
  /**
   * The client address it signed in from (the sign-in history's, trusted-proxy aware); null for
   * sessions signed in before it was recorded.
   */
  signInIp: string | null;
}
