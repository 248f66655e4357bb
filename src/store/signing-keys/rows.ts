/** Rows of the signing keys tables as records (src/domain/signing-keys.ts), and records as rows. */
import type { SigningKeyRecord } from '../../domain/signing-keys.js';
import { type Row, num, numOrNull } from '../rows.js';

export function toSigningKey(r: Row): SigningKeyRecord {
  return {
    kid: String(r.kid),
    alg: 'RS256',
    publicJwk: String(r.public_jwk),
    privateJwe: String(r.private_jwe),
    createdAt: num(r.created_at),
    retiredAt: numOrNull(r.retired_at),
  };
}
