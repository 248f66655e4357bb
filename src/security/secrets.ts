/**
 * The service's secrets (codes, tokens, client secrets, session ids, one-time links, recovery
 * codes): drawn at random, stored only as their SHA-256, compared in constant time. OAuth, the
 * sessions and the accounts all use them (docs/decisions.md#secrets); what is OAuth's own
 * (PKCE's S256, the sizes of codes and tokens) is in src/oauth/secrets.ts.
 */
import { hash, randomFillSync, timingSafeEqual } from 'node:crypto';

/**
 * Random bytes are drawn from the system's CSPRNG 4 KB at a time, and each secret takes the next
 * bytes of that block (and zeroes them behind it), as the uuid package does: one call into OpenSSL
 * per 128 tokens instead of one per token, several times cheaper per secret
 * (docs/performance.md#token-exchange-writes); the token exchange makes one per request. No byte
 * is handed out twice, and the block is a buffer of its own (allocUnsafeSlow), never part of
 * Node's shared allocation pool.
 */
const RANDOM_BLOCK_BYTES = 4096;
let randomBlock = Buffer.alloc(0);
let randomOffset = 0;

/** A random secret of `bytes` bytes, base64url: 32 bytes gives 43 characters, 8 bytes 11 (docs/decisions.md#secrets). */
export function randomSecret(bytes: number): string {
  if (bytes > RANDOM_BLOCK_BYTES) return randomFillSync(Buffer.alloc(bytes)).toString('base64url');
  if (randomOffset + bytes > randomBlock.length) {
    randomBlock = randomFillSync(Buffer.allocUnsafeSlow(RANDOM_BLOCK_BYTES));
    randomOffset = 0;
  }
  const secret = randomBlock.toString('base64url', randomOffset, randomOffset + bytes);
  randomBlock.fill(0, randomOffset, randomOffset + bytes);
  randomOffset += bytes;
  return secret;
}

/**
 * SHA-256 of a code, token or client secret (UTF-8), hex. Only this is ever stored. The one-shot
 * crypto.hash: every whois and token exchange hashes, and it costs less than createHash's chain
 * (docs/performance.md#hashing-secrets).
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
