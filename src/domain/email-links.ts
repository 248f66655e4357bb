/** One-time links sent by mail: the records the domain, the store and the pages share. */
/** What an email link is for. */
export type EmailLinkPurpose = 'verify' | 'reset' | 'change';

/** A one-time link sent by mail, stored by the SHA-256 of its token only. */
export interface EmailLinkRecord {
  tokenHash: string;
  userId: number;
  purpose: EmailLinkPurpose;
  /** The address the link proves: the current one (verify) or the new one (change); null for reset. */
  email: string | null;
  expiresAt: number;
  usedAt: number | null;
  createdAt: number;
}

/** What following a link changes on its user, applied in the same transaction as using the link up. */
export interface EmailLinkEffect {
  passwordHash?: string;
  email?: string;
  emailVerifiedAt?: number;
  /** Apply only while the user's address is still this one (else nothing is written). */
  whileEmailIs?: string;
}
