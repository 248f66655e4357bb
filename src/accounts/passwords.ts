import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** scrypt (N=2^15, r=8, p=1: 32 MiB; its time: docs/performance.md#password-hashing): a slow, memory-hard KDF. */
const PARAMS = { N: 1 << 15, r: 8, p: 1 };
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, params: typeof PARAMS): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 128 * params.N * params.r * 2 };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** Returns `scrypt$N$r$p$salt$hash` (base64url parts). */
export function hashPassword(password: string): Promise<string> {
  return slowHash(password, PARAMS);
}

/**
 * scrypt of `secret` as `scrypt$N$r$p$salt$hash`: under a new salt and `params`, or under the
 * salt and parameters of `like` (a hash this function made), so that one computation tells which
 * of several hashes sharing them matches (a set of recovery codes).
 */
export async function slowHash(secret: string, params: typeof PARAMS, like?: string): Promise<string> {
  let salt = randomBytes(16);
  if (like !== undefined) {
    const [, n, r, p, saltOf] = like.split('$');
    params = { N: Number(n), r: Number(r), p: Number(p) };
    salt = Buffer.from(saltOf ?? '', 'base64url');
  }
  const key = await derive(secret, salt, params);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}
