/** Rows of the sign-ins table as records (src/domain/sign-ins.ts), and records as rows. */
import type { SignInRecord } from '../../domain/sign-ins.js';
import { type Row, num } from '../rows.js';

export function toSignIn(r: Row): SignInRecord {
  return { at: num(r.at), ip: String(r.ip), userAgent: String(r.user_agent), upstream: typeof r.upstream === 'string' ? r.upstream : null };
}
