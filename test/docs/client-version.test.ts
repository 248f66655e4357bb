/**
 * The typed client's install lines follow the package: every markdown file that names a tarball
 * of client/ (`identity-profile-service-client-<version>.tgz`) or the package at a version
 * (`@identity-profile-service/client@<version>`) names the version client/package.json has, which
 * is the one `npm pack` writes. docs/changelog.md's history of versions is not an install line.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const { name, version } = JSON.parse(fs.readFileSync(path.join(root, 'client/package.json'), 'utf8')) as { name: string; version: string };

function markdownUnder(dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return ['node_modules', '.git', 'dist', 'test-artifacts'].includes(e.name) ? [] : markdownUnder(rel);
    return e.name.endsWith('.md') ? [rel] : [];
  });
}

/** `npm pack`'s file name for the package: the scope's @ dropped, its / a hyphen. */
const tarballPrefix = `${name.replace(/^@/, '').replace('/', '-')}-`;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const named = new RegExp(`${escape(tarballPrefix)}(\\d+\\.\\d+\\.\\d+[\\w.-]*?)\\.tgz|${escape(name)}@(\\d+\\.\\d+\\.\\d+[\\w.-]*)`, 'g');

describe("the client package's version in the docs", () => {
  const mentions = markdownUnder('.').flatMap((file) =>
    [...fs.readFileSync(path.join(root, file), 'utf8').matchAll(named)].map((m) => ({ file, text: m[0], version: m[1] ?? m[2] })),
  );

  it('names the tarball npm pack makes in the install lines of docs/clients.md and client/README.md', () => {
    const tarball = `${tarballPrefix}${version}.tgz`;
    for (const file of ['docs/clients.md', 'client/README.md']) {
      expect(mentions.filter((m) => m.file === file).map((m) => m.text), file).toEqual([tarball, tarball]);
    }
  });

  it(`names no other version of ${name} anywhere in the markdown`, () => {
    expect(mentions.filter((m) => m.version !== version)).toEqual([]);
  });
});
