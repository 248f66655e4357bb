/** Rows of the grants tables as records (src/domain/grants.ts), and records as rows. */
import type { GrantRecord, GrantWithApp } from '../../domain/grants.js';
import { type Row, num, scopesOf } from '../rows.js';

export function toGrant(r: Row): GrantRecord {
  return {
    userId: num(r.user_id),
    clientId: String(r.client_id),
    scopes: scopesOf(r.scopes),
    createdAt: num(r.created_at),
    lastUsedAt: num(r.last_used_at),
  };
}

/** A grants row joined with its app's name and owner (`app_name`, `owner_id`, `owner_name`). */
export function toGrantWithApp(r: Row): GrantWithApp {
  return { ...toGrant(r), appName: String(r.app_name), ownerId: num(r.owner_id), ownerName: String(r.owner_name) };
}
