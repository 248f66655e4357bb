/**
 * The lifetimes table of docs/decisions.md#lifetimes is LIFETIMES (src/domain/lifetimes.ts), row
 * for row, and the token response's fixed `expires_in` is the access token's lifetime.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LIFETIMES } from '../../src/domain/lifetimes.js';
import { EXPIRES_IN_SECONDS } from '../../src/oauth/tokens.js';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const UNIT_MS: Record<string, number> = { second: 1000, minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/** The table's rows as name -> milliseconds. */
function documented(): Record<string, number> {
  const section = fs.readFileSync(path.join(root, 'docs/decisions.md'), 'utf8').split(/^## Lifetimes$/m)[1]?.split(/^## /m)[0] ?? '';
  const rows: Record<string, number> = {};
  for (const [, name, count, unit] of section.matchAll(/^\| `(\w+)` \| (\d+) (second|minute|hour|day)s? \|/gm)) {
    rows[name!] = Number(count) * UNIT_MS[unit!]!;
  }
  return rows;
}

describe('lifetimes', () => {
  it('docs/decisions.md#lifetimes lists every lifetime of LIFETIMES with its value, and no other', () => {
    expect(documented()).toEqual({ ...LIFETIMES });
  });

  it('the token response says expires_in 600, the access token lifetime in seconds', () => {
    expect(EXPIRES_IN_SECONDS).toBe(600);
    expect(EXPIRES_IN_SECONDS * 1000).toBe(LIFETIMES.accessToken);
  });
});
