/**
 * The layout tree of docs/development.md (the fenced block under "## How the code is laid out")
 * names what src/ holds, no more and no less. The granularity:
 *
 * - The doc must name every directory under src/ (at any depth) and every file directly in src/.
 *   Files inside a directory need not be named: the directory's line covers them, unless the
 *   doc lists that directory's files one by one as entries under it (src/http/): then the list
 *   has every file of the directory.
 * - The doc names a path by an entry line (`src/http/`, `src/config.ts`, or an entry indented
 *   under a src/ directory, `  app.ts` or `  dispatch.ts, routing.ts`), or by a file or directory
 *   name in a src/ entry's description (`... rows.ts (row types ...)`, `migrations/`), looked up
 *   in the entry's directory first, then from src/ (a name that starts with `src/` as it is).
 *   Naming a file names its directories.
 * - Every path the doc names must exist: a file renamed away or a directory gone fails.
 *
 * Lines outside src/ (the contract, client/, examples/, scripts/, test/), and paths of those
 * directories named in a src/ entry's description, are not checked here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

/** The fenced block under the heading. */
function layoutBlock(markdown: string): string {
  const section = markdown.split(/^## How the code is laid out\s*$/m)[1];
  const block = section?.split(/^## /m)[0]?.match(/^```[^\n]*\n([\s\S]*?)^```/m)?.[1];
  if (!block) throw new Error('docs/development.md has no fenced layout block under "## How the code is laid out"');
  return block;
}

/** An entry starts at column 0 (top level) or is indented under one by less than 4 spaces; deeper lines continue a description. */
const ENTRY_INDENT = 4;
/** A file (`name.ts`) or directory (`name/`, `a/b/`) named in a description, not part of a longer path nor a document's link (`.md`). */
const NAMED_IN_TEXT = /(?<![\w./#-])((?:[\w-]+\/)*[\w.-]+\.ts|(?:[\w-]+\/)+)(?![\w/.-])/g;

/**
 * Paths under src/ the tree names (directories end in `/`), each with the line that names it, and
 * the directories whose files it lists one by one.
 */
function namedPaths(block: string): { named: Map<string, string>; listed: Set<string> } {
  const named = new Map<string, string>();
  const listed = new Set<string>();
  let parent: string | undefined; // the src/ directory of the current top-level entry, if it is one
  let entryDir: string | undefined; // where names in the current description are looked up
  const name = (p: string, line: string) => named.has(p) || named.set(p, line.trim());
  const fromText = (text: string, line: string) => {
    if (!entryDir) return;
    for (const [, token] of text.matchAll(NAMED_IN_TEXT)) {
      if (token!.startsWith('src/')) {
        name(token!, line);
        continue;
      }
      // A path of another top-level directory (a test that proves the line) is not src/'s.
      if (/^(test|scripts|client|examples|docs)\//.test(token!)) continue;
      const inDir = path.posix.join(entryDir, token!); // path.posix.join keeps a directory's trailing slash
      const fromSrc = path.posix.join('src', token!);
      name(exists(inDir) || !exists(fromSrc) ? inDir : fromSrc, line);
    }
  };
  for (const line of block.split('\n')) {
    if (!line.trim()) continue;
    const indent = line.length - line.trimStart().length;
    if (indent >= ENTRY_INDENT) {
      fromText(line, line); // a description's next line
      continue;
    }
    // The names before the first run of two spaces, then the description.
    const [, names = '', description = ''] = line.trim().match(/^(.*?)(?: {2,}(.*))?$/)!;
    if (indent === 0) {
      const target = names.trim();
      parent = target.startsWith('src/') && target.endsWith('/') ? target : undefined;
      entryDir = target.startsWith('src/') ? (target.endsWith('/') ? target : path.posix.dirname(target) + '/') : undefined;
      if (target.startsWith('src/')) name(target, line);
    } else {
      if (!parent) continue;
      entryDir = parent;
      listed.add(parent);
      for (const child of names.split(/,\s*/)) name(parent + child, line);
    }
    fromText(description, line);
  }
  // Naming a file or directory names every directory above it.
  for (const p of [...named.keys()]) {
    for (let dir = path.posix.dirname(p.replace(/\/$/, '')); dir !== 'src' && dir !== '.'; dir = path.posix.dirname(dir)) name(dir + '/', named.get(p)!);
  }
  return { named, listed };
}

function exists(p: string): boolean {
  const stat = fs.statSync(path.join(root, p), { throwIfNoEntry: false });
  return p.endsWith('/') ? Boolean(stat?.isDirectory()) : Boolean(stat?.isFile());
}

/** Every directory under src/ (as `src/a/b/`), every file directly in src/ and every file of a `listed` directory. */
function modules(listed: Set<string>): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}${entry.name}`;
      if (entry.isDirectory()) {
        found.push(`${rel}/`);
        walk(`${rel}/`);
      } else if (dir === 'src/' || listed.has(dir)) {
        found.push(rel);
      }
    }
  };
  walk('src/');
  return found.sort();
}

const { named, listed } = namedPaths(layoutBlock(fs.readFileSync(path.join(root, 'docs', 'development.md'), 'utf8')));

describe('the layout tree in docs/development.md', () => {
  it('names every directory under src/ and every file in src/', () => {
    expect(modules(listed).filter((p) => !named.has(p))).toEqual([]);
  });

  it('names nothing under src/ that does not exist', () => {
    expect([...named.keys()].filter((p) => !exists(p)).sort()).toEqual([]);
  });

  it('is read as entries and descriptions (the parser finds what the tree certainly names)', () => {
    for (const p of ['src/http/', 'src/app.ts', 'src/http/routing.ts', 'src/config.ts', 'src/store/migrations/', 'src/pages/assets/', 'src/docs/published.ts', 'src/docs/']) {
      expect(named.has(p), p).toBe(true);
    }
    // A description's link to a document is not a path under src/.
    expect([...named.keys()].filter((p) => p.includes('.md') || p.startsWith('src/docs/operations'))).toEqual([]);
  });
});
