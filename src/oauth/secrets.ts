/** OAuth's own secrets: PKCE's S256 and the sizes of codes, tokens and client credentials (src/security/secrets.ts draws and hashes them). */
import { createHash } from 'node:crypto';

/** RFC 7636 S256: BASE64URL(SHA256(ASCII(code_verifier))). */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

export const CODE_BYTES = 32;
export const TOKEN_BYTES = 32;
export const CLIENT_SECRET_BYTES = 32;
export const CLIENT_ID_BYTES = 8;
