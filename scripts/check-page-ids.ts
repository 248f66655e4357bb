/**
 * `npm run lint:ids`: the element ids the page scripts use (src/pages/ids.ts) are written only
 * through that module. Fails when a template or script spells one of its ids as a literal
 * (`id="bio-form"`, `'#bio-form'`, `getElementById('bio-form')`) instead of `ids.profile.bioForm`,
 * or when an id of the module is named by no template (a page lost the element a script needs).
 * With the type check (a renamed or removed key fails every use), an id changed on one side only
 * cannot pass `npm run lint`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ids } from '../src/pages/ids.js';

const root = path.resolve(import.meta.dirname, '..');
const pages = path.join(root, 'src', 'pages');
const templates = fs
  .readdirSync(pages)
  .filter((name) => name.endsWith('.ts') && name !== 'ids.ts')
  .map((name) => path.join(pages, name));
const scripts = fs
  .readdirSync(path.join(pages, 'scripts'))
  .filter((name) => name.endsWith('.ts'))
  .map((name) => path.join(pages, 'scripts', name));

/** Every fixed id of the module, as `group.key` and its value (the functions make ids per item). */
const named = Object.entries(ids).flatMap(([group, entries]) =>
  Object.entries(entries as Record<string, unknown>)
    .filter((entry): entry is [string, string] => typeof entry[1] === 'string')
    .map(([key, value]) => ({ name: `ids.${group}.${key}`, group, key, value })),
);

const problems: string[] = [];
const read = (file: string) => fs.readFileSync(file, 'utf8');
for (const file of [...templates, ...scripts]) {
  const text = read(file);
  for (const { name, value } of named) {
    const escaped = value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const literal = new RegExp(`id="${escaped}"|['"\`]#${escaped}['"\`\\s\\[.:]|getElementById\\(['"\`]${escaped}['"\`]\\)|byId\\(['"\`]${escaped}['"\`]`);
    if (literal.test(text)) problems.push(`${path.relative(root, file)} spells the id "${value}" as a literal: use ${name}`);
  }
}
const templateText = templates.map(read).join('\n');
for (const { name, group, key } of named) {
  // Written as ids.group.key, or through a short alias of the group (`const p = ids.profile` ... `p.key`) in a script.
  if (!templateText.includes(`${name}}`) && !templateText.includes(`${name})`)) problems.push(`no template names ${name} (ids.${group}.${key}): a page lost the element, or the id is unused`);
}
if (problems.length) {
  process.stderr.write(`${problems.join('\n')}\n`);
  process.exit(1);
}
process.stdout.write(`page ids: ${named.length} ids, each written through src/pages/ids.ts by ${templates.length} templates and ${scripts.length} scripts\n`);
