import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** scrypt's cost parameters. */
export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/**
 * The cost every password is hashed at: scrypt N=2^15, r=8, p=1 (32 MiB; its time:
 * docs/performance.md#password-hashing), a slow, memory-hard KDF. Only tests whose subject is not
 * hashing inject a lower one (AppOptions.passwordHashing); a stored hash carries its own parameters.
 */
export const PASSWORD_HASHING: ScryptParams = { N: 1 << 15, r: 8, p: 1 };

/**
 * The cost recovery codes are hashed at (src/accounts/second-factor.ts): scrypt N=2^14, r=8, p=1
 * (16 MiB). A code has far more entropy than a password. Tests whose subject is not hashing inject
 * a lower one (AppOptions.recoveryCodeHashing); a stored set carries its own parameters.
 */
export const RECOVERY_CODE_HASHING: ScryptParams = { N: 1 << 14, r: 8, p: 1 };
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 128 * params.N * params.r * 2 };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** Returns `scrypt$N$r$p$salt$hash` (base64url parts), at PASSWORD_HASHING's cost unless given another. */
export function hashPassword(password: string, params: ScryptParams = PASSWORD_HASHING): Promise<string> {
  return slowHash(password, params);
}

/**
 * scrypt of `secret` as `scrypt$N$r$p$salt$hash`: under a new salt and `params`, or under the
 * salt and parameters of `like` (a hash this function made), so that one computation tells which
 * of several hashes sharing them matches (a set of recovery codes).
 */
export async function slowHash(secret: string, params: ScryptParams, like?: string): Promise<string> {
  const shared = like === undefined ? undefined : parse(like);
  const salt = shared?.salt ?? randomBytes(16);
  const used = shared?.params ?? params;
  const key = await derive(secret, salt, used);
  return ['scrypt', used.N, used.r, used.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** The parts of a `scrypt$N$r$p$salt$hash` string; undefined for anything else. */
function parse(stored: string): { params: ScryptParams; salt: Buffer; hash: Buffer } | undefined {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !hash) return undefined;
  return { params: { N: Number(n), r: Number(r), p: Number(p) }, salt: Buffer.from(salt, 'base64url'), hash: Buffer.from(hash, 'base64url') };
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = parse(stored);
  if (!parts) return false;
  const key = await derive(password, parts.salt, parts.params);
  return key.length === parts.hash.length && timingSafeEqual(key, parts.hash);
}
