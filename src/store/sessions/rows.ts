/** Rows of the sessions tables as records (src/domain/sessions.ts), and records as rows. */
import type { SessionMeta } from '../../domain/sessions.js';
import { type Row, num } from '../rows.js';

export function toSessionMeta(r: Row): SessionMeta {
  return {
    publicId: String(r.public_id),
    startedAt: num(r.started_at),
    lastSeenAt: num(r.last_seen_at),
    userAgent: (r.user_agent as string | null) ?? null,
    signInIp: (r.sign_in_ip as string | null) ?? null,
  };
}
