import { createHash, hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A random secret of `bytes` bytes, base64url: 32 bytes gives 43 characters, 8 bytes 11 (docs/decisions.md#secrets). */
export function randomSecret(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}

/**
 * SHA-256 of a code, token or client secret (UTF-8), hex. Only this is ever stored. The one-shot
 * crypto.hash: every whois and token exchange hashes, and it costs half of createHash's chain.
 */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** Constant-time comparison of two hex digests. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}

/** RFC 7636 S256: BASE64URL(SHA256(ASCII(code_verifier))). */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

export const CODE_BYTES = 32;
export const TOKEN_BYTES = 32;
export const CLIENT_SECRET_BYTES = 32;
export const CLIENT_ID_BYTES = 8;
