/**
 * The repository explains itself: code and README link their decisions to sections of
 * the docs that exist, and nothing points at documents outside the repository.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

function filesUnder(dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : filesUnder(rel);
    return /\.(ts|js|mjs|css|html|md)$/.test(e.name) ? [rel] : [];
  });
}

// This file names the patterns it looks for, so it is not one of the files it checks.
const sources = ['README.md', ...['src', 'scripts', 'client', 'test'].flatMap(filesUnder)].filter((f) => f !== path.join('test', 'docs-links.test.ts'));
const text = new Map(sources.map((f) => [f, fs.readFileSync(path.join(root, f), 'utf8')]));

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchorOf = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

describe('docs links', () => {
  it('every docs/<file>.md#section the code and README name is a heading of that file', () => {
    const anchors = new Map<string, Set<string>>();
    const anchorsOf = (doc: string) => {
      if (!anchors.has(doc)) {
        const file = path.join(root, 'docs', `${doc}.md`);
        const headings = fs.existsSync(file) ? [...fs.readFileSync(file, 'utf8').matchAll(/^#{1,6} (.+)$/gm)] : [];
        anchors.set(doc, new Set(headings.map((m) => anchorOf(m[1]!))));
      }
      return anchors.get(doc)!;
    };
    const missing: string[] = [];
    let links = 0;
    for (const [file, content] of text) {
      for (const m of content.matchAll(/docs\/([\w-]+)\.md#([\w-]+)/g)) {
        links += 1;
        if (!anchorsOf(m[1]!).has(m[2]!)) missing.push(`${file}: docs/${m[1]}.md#${m[2]}`);
      }
    }
    expect(missing).toEqual([]);
    expect(links).toBeGreaterThan(20);
  });

  it('nothing points at documents outside the repository', () => {
    const outside = /\.\.\/shared|shared spec|STACK\.md|(?<!docs\/)\bdecisions\.md/;
    const found = [...text].filter(([, content]) => outside.test(content)).map(([file]) => file);
    expect(found).toEqual([]);
  });
});
