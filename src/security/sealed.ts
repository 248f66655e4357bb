/**
 * Secrets the service must read back (ID token signing keys, authenticator app seeds) are kept in
 * the database only sealed: a compact JWE (dir, A256GCM) under a key derived from SESSION_SECRET
 * with HKDF-SHA-256, a different key per purpose (`info`). The first SESSION_SECRET value seals;
 * any of them opens, so a rotation of SESSION_SECRET keeps what was sealed before readable.
 */
import { hkdfSync } from 'node:crypto';
import { compactDecrypt, CompactEncrypt } from 'jose';

function sealingKey(secret: string, info: string): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', secret, '', info, 32));
}

/** Seals `plaintext` under the key `secret` and `info` derive: a compact JWE. */
export async function seal(secret: string, info: string, plaintext: string): Promise<string> {
  return new CompactEncrypt(new TextEncoder().encode(plaintext))
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
    .encrypt(sealingKey(secret, info));
}

/** Opens a JWE seal made with any of `secrets` for `info`; undefined when none of them opens it. */
export async function unseal(secrets: readonly string[], info: string, jwe: string): Promise<string | undefined> {
  for (const secret of secrets) {
    try {
      const { plaintext } = await compactDecrypt(jwe, sealingKey(secret, info));
      return new TextDecoder().decode(plaintext);
    } catch {
      // Not this secret: try the next.
    }
  }
  return undefined;
}
