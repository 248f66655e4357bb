/** randomSecret draws from 4 KB blocks of CSPRNG output (src/security/secrets.ts): sizes, alphabet, no repeats across blocks. */
import { describe, expect, it } from 'vitest';
import { randomSecret } from '../../src/security/secrets.js';

describe('randomSecret', () => {
  it('gives base64url strings of the asked size, none repeated, across many 4 KB blocks', () => {
    // 3,000 secrets of 32 bytes and 3,000 of 8 bytes: 120 KB, about 30 blocks.
    const long = Array.from({ length: 3000 }, () => randomSecret(32));
    const short = Array.from({ length: 3000 }, () => randomSecret(8));
    expect(long.every((s) => /^[A-Za-z0-9_-]{43}$/.test(s))).toBe(true);
    expect(short.every((s) => /^[A-Za-z0-9_-]{11}$/.test(s))).toBe(true);
    expect(new Set(long).size).toBe(3000);
    expect(new Set(short).size).toBe(3000);
    // Not all bytes zero (a block handed out after being wiped would be).
    expect(long.filter((s) => /^A+[AQgw]?$/.test(s))).toEqual([]);
  });

  it('serves a size larger than a block directly', () => {
    const big = randomSecret(5000);
    expect(Buffer.from(big, 'base64url')).toHaveLength(5000);
    expect(new Set(big).size).toBeGreaterThan(32);
  });

  it('uses each byte once: the bytes of consecutive secrets never overlap', () => {
    // 4096 is not a multiple of 24, so some secret would straddle the end of a block if a
    // secret were cut across two blocks or the offset were reused.
    const bytes = Array.from({ length: 1000 }, () => Buffer.from(randomSecret(24), 'base64url').toString('hex'));
    expect(new Set(bytes).size).toBe(1000);
    expect(bytes.every((b) => b.length === 48)).toBe(true);
  });
});
