/**
 * docs/configuration.md documents exactly the environment variables src/config.ts reads: a
 * variable added to the code without a row in the table fails, and so does a row for a variable
 * the code no longer reads.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const read = (file: string): string => fs.readFileSync(path.join(root, file), 'utf8');

/** Every `env.NAME` and `env['NAME']` in config.ts (it reads process.env through `env`). */
function variablesReadByConfig(): string[] {
  const source = read('src/config.ts');
  const names = [...source.matchAll(/\benv(?:\.([A-Z][A-Z0-9_]*)\b|\[\s*['"]([A-Z][A-Z0-9_]*)['"]\s*\])/g)].map((m) => m[1] ?? m[2]!);
  return [...new Set(names)].sort();
}

/** The first column of the table whose header row starts with `| variable |`. */
function variablesDocumented(): string[] {
  const lines = read('docs/configuration.md').split('\n');
  const start = lines.findIndex((line) => /^\|\s*variable\s*\|/.test(line));
  expect(start, 'docs/configuration.md has a table headed "| variable |"').toBeGreaterThanOrEqual(0);
  const names: string[] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const m = /^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|/.exec(line);
    expect(m, `a row of the table names one variable: ${line.slice(0, 60)}`).not.toBeNull();
    names.push(m![1]!);
  }
  return names.sort();
}

describe('docs/configuration.md', () => {
  it('lists every environment variable src/config.ts reads, and no other', () => {
    const inCode = variablesReadByConfig();
    const documented = variablesDocumented();
    expect(inCode.length).toBeGreaterThan(10);
    expect({ undocumented: inCode.filter((n) => !documented.includes(n)), notRead: documented.filter((n) => !inCode.includes(n)) }).toEqual({
      undocumented: [],
      notRead: [],
    });
  });

  it('lists each variable once', () => {
    const documented = variablesDocumented();
    expect(documented.filter((n, i) => documented.indexOf(n) !== i)).toEqual([]);
  });
});
