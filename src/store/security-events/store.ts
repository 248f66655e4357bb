import type { Ended, Ends, EventSubject } from '../../domain/security-events.js';

/** Security events whose only change is what they end (src/domain/security-events.ts). */
export interface SecurityEventStore {
  /**
   * In one transaction: sets the user's password hash when `passwordHash` is given, then ends what
   * `ends` lists for `subject` (src/store/security-events/ends.ts). Undefined, changing nothing,
   * when there is no such user.
   */
  recordSecurityEvent(subject: EventSubject, ends: Ends, now: number, change?: { passwordHash?: string }): Promise<Ended | undefined>;
}
