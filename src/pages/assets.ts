/**
 * The pages' scripts and stylesheet: the files in assets/ beside this module, read once. Which
 * names may be asked for is the contract's rule (getAsset's `file` pattern, checked before the
 * handler runs); this module only knows which files it ships.
 */
import fs from 'node:fs';
import path from 'node:path';

const DIR = path.join(import.meta.dirname, 'assets');
const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };
/** Listed once: a name that is not one of these files is never turned into a path. */
const SHIPPED = new Set(fs.readdirSync(DIR).filter((name) => Object.hasOwn(TYPES, path.extname(name))));
const cache = new Map<string, Promise<{ type: string; body: string }>>();

export function readAsset(name: string): Promise<{ type: string; body: string } | undefined> {
  if (!SHIPPED.has(name)) return Promise.resolve(undefined);
  let found = cache.get(name);
  if (!found) {
    found = fs.promises.readFile(path.join(DIR, name), 'utf8').then((body) => ({ type: TYPES[path.extname(name)]!, body }));
    cache.set(name, found);
  }
  return found;
}
