import type { Ends } from '../../domain/security-events.js';
import type { GrantRecord, GrantWithApp } from '../../domain/grants.js';

/** Remembered consent: which apps a user let use their account, with which scopes. */
export interface GrantStore {
  getGrant(userId: number, clientId: string): Promise<GrantRecord | undefined>;
  /**
   * Creates the grant, or replaces its scopes and last use (keeping when it was first granted).
   */
  saveGrant(grant: Pick<GrantRecord, 'userId' | 'clientId' | 'scopes'>, now: number): Promise<void>;
  /** Records that the app got a code for the user now. */
  touchGrant(userId: number, clientId: string, now: number): Promise<void>;
  /** A user's grants with their apps, oldest first. */
  listGrants(userId: number): Promise<GrantWithApp[]>;
  /**
   * In one transaction: deletes the grant and ends `ends` for this user at this app (the security
   * event's row: its tokens, codes and device approvals). Returns false (changing nothing) when
   * there was no grant.
   */
  revokeGrant(userId: number, clientId: string, now: number, ends: Ends): Promise<boolean>;
}
