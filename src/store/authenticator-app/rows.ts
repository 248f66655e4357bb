/** Rows of the authenticator app tables as records (src/domain/authenticator-app.ts), and records as rows. */
import type { TotpRecord } from '../../domain/authenticator-app.js';
import { type Row, num, numOrNull } from '../rows.js';

export function toTotp(r: Row): TotpRecord {
  return {
    userId: num(r.user_id),
    secretJwe: String(r.secret_jwe),
    confirmedAt: numOrNull(r.confirmed_at),
    lastStep: numOrNull(r.last_step),
    createdAt: num(r.created_at),
  };
}
