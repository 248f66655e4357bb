/**
 * The repository explains itself: the README and docs/ link to files and headings that exist, the
 * code names sections of the docs that exist, and nothing points at documents outside the
 * repository.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

function filesUnder(dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : filesUnder(rel);
    return /\.(ts|js|mjs|css|html|md)$/.test(e.name) ? [rel] : [];
  });
}

const read = (file: string): string => fs.readFileSync(path.join(root, file), 'utf8');

/** The README and every document in docs/: the prose whose links must lead somewhere. */
const docs = ['README.md', ...fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => path.join('docs', f))];
// This file names the patterns it looks for, so it is not one of the files it checks.
const code = [...['src', 'scripts', 'client', 'test', 'examples'].flatMap(filesUnder), 'openapi.yaml'].filter((f) => f !== path.join('test', 'docs', 'links.test.ts'));
const text = new Map([...docs, ...code].map((f) => [f, read(f)]));

/** Markdown without its fenced code blocks (a `# comment` in a shell block is not a heading). */
const withoutFences = (markdown: string): string => markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchorOf = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

/** The anchors of a markdown file's headings; a repeated heading gets -1, -2, ... as on GitHub. */
const anchorCache = new Map<string, Set<string>>();
function anchorsOf(file: string): Set<string> {
  let anchors = anchorCache.get(file);
  if (!anchors) {
    anchors = new Set();
    const full = path.join(root, file);
    const markdown = fs.existsSync(full) ? withoutFences(fs.readFileSync(full, 'utf8')) : '';
    for (const m of markdown.matchAll(/^#{1,6} (.+?)#*$/gm)) {
      const base = anchorOf(m[1]!);
      let anchor = base;
      for (let n = 1; anchors.has(anchor); n++) anchor = `${base}-${n}`;
      anchors.add(anchor);
    }
    anchorCache.set(file, anchors);
  }
  return anchors;
}

const inRepository = (file: string): boolean => {
  const rel = path.relative(root, path.resolve(root, file));
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
};

describe('docs links', () => {
  it('every relative link in the README and docs/ leads to a file, and a heading, that exists', () => {
    const dead: string[] = [];
    let links = 0;
    for (const file of docs) {
      // Inline code is not a link: `[x](y)` in backticks stays text.
      const prose = withoutFences(text.get(file)!).replace(/`[^`\n]*`/g, '');
      for (const m of prose.matchAll(/!?\[[^\]]*\]\(([^()\s]+)(?:\s+"[^"]*")?\)/g)) {
        const target = m[1]!;
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
        links += 1;
        const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
        const resolved = pathPart === '' ? file : path.join(path.dirname(file), decodeURIComponent(pathPart));
        if (!inRepository(resolved)) {
          dead.push(`${file}: ${target} (outside the repository)`);
        } else if (!fs.existsSync(path.join(root, resolved))) {
          dead.push(`${file}: ${target} (no such file)`);
        } else if (anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor)) {
          dead.push(`${file}: ${target} (no such heading in ${resolved})`);
        }
      }
    }
    expect(dead).toEqual([]);
    expect(links).toBeGreaterThan(50);
  });

  it('every docs/<file>.md#section named anywhere is a heading of that file', () => {
    const missing: string[] = [];
    let references = 0;
    for (const [file, content] of text) {
      for (const m of content.matchAll(/(?<![\w./-])docs\/([\w-]+\.md)#([\w-]+)/g)) {
        references += 1;
        if (!anchorsOf(path.join('docs', m[1]!)).has(m[2]!)) missing.push(`${file}: docs/${m[1]}#${m[2]}`);
      }
    }
    expect(missing).toEqual([]);
    expect(references).toBeGreaterThan(20);
  });

  it('every docs/<file>.md the code names exists', () => {
    const missing: string[] = [];
    for (const file of code) {
      for (const m of text.get(file)!.matchAll(/(?<![\w./-])docs\/([\w-]+\.md)/g)) {
        if (!fs.existsSync(path.join(root, 'docs', m[1]!))) missing.push(`${file}: docs/${m[1]}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('nothing points at documents outside the repository', () => {
    const anywhere = /\.\.\/shared|shared spec|STACK\.md/;
    // The code and the README name decisions as docs/decisions.md, never as a bare file name.
    const bareDecisions = /(?<!docs\/)\bdecisions\.md/;
    const found = [...text]
      .filter(([file, content]) => anywhere.test(content) || (!file.startsWith(`docs${path.sep}`) && bareDecisions.test(content)))
      .map(([file]) => file);
    expect(found).toEqual([]);
  });
});
