/**
 * What /assets/ serves: the pages' stylesheet and icon (the files in assets/ beside this module,
 * read once) and the pages' scripts (one bundle per page, src/pages/browser-code.ts). Which names
 * may be asked for is the contract's rule (getAsset's `file` pattern, checked before the handler
 * runs); this module only knows which files it ships.
 */
import fs from 'node:fs';
import path from 'node:path';
import { browserFile, pageScriptFile } from './browser-code.js';

const DIR = path.join(import.meta.dirname, 'assets');
const TYPES: Record<string, string> = { '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml; charset=utf-8' };

/** Listed once: a name that is not one of these files is never turned into a path. */
const SHIPPED = new Map<string, string>(
  fs
    .readdirSync(DIR)
    .filter((name) => Object.hasOwn(TYPES, path.extname(name)))
    .map((name): [string, string] => [name, path.join(DIR, name)]),
);
const cache = new Map<string, Promise<{ type: string; body: string }>>();

export async function readAsset(name: string): Promise<{ type: string; body: string } | undefined> {
  const script = pageScriptFile(name);
  if (script) return browserFile(script);
  const file = SHIPPED.get(name);
  if (file === undefined) return undefined;
  let found = cache.get(name);
  if (!found) {
    found = fs.promises.readFile(file, 'utf8').then((body) => ({ type: TYPES[path.extname(name)]!, body }));
    cache.set(name, found);
  }
  return found;
}
