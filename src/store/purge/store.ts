/** One bounded round of the purge: rows past these instants go, at most `limit` per table. */
export interface PurgeBatch {
  /** Access and refresh tokens, and device authorizations, whose expires_at is at or before this. */
  tokensExpiredBy: number;
  /** Codes whose expires_at is at or before this (earlier than now: see src/purge/purge.ts). */
  codesExpiredBy: number;
  /** Sessions whose expires_at is at or before this. */
  sessionsExpiredBy: number;
  limit: number;
}

/** How many rows of each kind a purge deleted. */
export interface PurgeCounts {
  tokens: number;
  refreshTokens: number;
  deviceAuthorizations: number;
  codes: number;
  sessions: number;
}

/** Deleting what has expired, across the tables whose rows expire. */
export interface PurgeStore {
  /**
   * Deletes at most `limit` expired rows of each of access tokens, refresh tokens, device authorizations, codes and sessions. Several instances
   * may run it at once: on PostgreSQL rows another purge holds are skipped, not waited for.
   */
  purgeExpired(batch: PurgeBatch): Promise<PurgeCounts>;
}
