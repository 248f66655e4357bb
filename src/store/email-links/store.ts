import type { Ended, Ends } from '../../domain/security-events.js';
import type { EmailLinkEffect, EmailLinkPurpose, EmailLinkRecord } from '../../domain/email-links.js';

/** One-time links sent by mail (address verification, password reset, address change). */
export interface EmailLinkStore {
  createEmailLink(link: EmailLinkRecord): Promise<void>;
  getEmailLink(tokenHash: string): Promise<EmailLinkRecord | undefined>;
  deleteEmailLink(tokenHash: string): Promise<void>;
  /** A user's links of one purpose, newest first (to tell a link replaced by a newer one). */
  listEmailLinks(userId: number, purpose: EmailLinkPurpose): Promise<EmailLinkRecord[]>;
  /**
   * In one transaction: marks the link used if it is unused and unexpired, applies `effect` to its
   * user, marks used the user's other unused links whose purpose is in `voids`, and ends `ends`
   * (the security event's row), returning what ended. Undefined, having written nothing, when
   * the link cannot be used (or `whileEmailIs` no longer holds). Throws UniqueViolation('email')
   * when the new address belongs to another user by now.
   */
  redeemEmailLink(tokenHash: string, now: number, effect: EmailLinkEffect, voids: readonly EmailLinkPurpose[], ends: Ends): Promise<Ended | undefined>;
}
