/** Rows of the email links tables as records (src/domain/email-links.ts), and records as rows. */
import type { EmailLinkPurpose, EmailLinkRecord } from '../../domain/email-links.js';
import { type Row, num, numOrNull } from '../rows.js';

export function toEmailLink(r: Row): EmailLinkRecord {
  return {
    tokenHash: String(r.token_hash),
    userId: num(r.user_id),
    purpose: String(r.purpose) as EmailLinkPurpose,
    email: (r.email as string | null) ?? null,
    expiresAt: num(r.expires_at),
    usedAt: numOrNull(r.used_at),
    createdAt: num(r.created_at),
  };
}
