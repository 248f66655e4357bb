/** Rows of the passkeys tables as records (src/domain/passkeys.ts), and records as rows. */
import type { PasskeyRecord } from '../../domain/passkeys.js';
import { type Row, num, numOrNull } from '../rows.js';

export function toPasskey(r: Row): PasskeyRecord {
  return {
    id: num(r.id),
    userId: num(r.user_id),
    credentialId: String(r.credential_id),
    publicKey: String(r.public_key),
    counter: num(r.counter),
    transports: JSON.parse(String(r.transports)) as string[],
    deviceType: r.device_type === 'multiDevice' ? 'multiDevice' : 'singleDevice',
    backedUp: r.backed_up === true || r.backed_up === 1,
    name: String(r.name),
    createdAt: num(r.created_at),
    lastUsedAt: numOrNull(r.last_used_at),
  };
}
