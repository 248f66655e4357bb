/** Rows of the upstream_identities table (joined with its upstream's name) as records (src/domain/upstreams.ts). */
import type { UpstreamIdentityRecord } from '../../domain/upstreams.js';
import { type Row, num, numOrNull } from '../rows.js';

/** The columns toUpstreamIdentity reads: the link's, and its upstream's shown name. */
export const UPSTREAM_IDENTITY_COLUMNS = ['upstream_identities.*', 'upstream_providers.name as upstream_name'] as const;

export function toUpstreamIdentity(r: Row): UpstreamIdentityRecord {
  return {
    id: num(r.id),
    userId: num(r.user_id),
    upstreamSlug: String(r.upstream_slug),
    upstreamName: String(r.upstream_name),
    subject: String(r.subject),
    email: typeof r.email === 'string' ? r.email : null,
    createdAt: num(r.created_at),
    lastUsedAt: numOrNull(r.last_used_at),
  };
}
