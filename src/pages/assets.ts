/** The pages' scripts and stylesheet: files in assets/ beside this module, read once. */
import fs from 'node:fs/promises';
import path from 'node:path';

const DIR = path.join(import.meta.dirname, 'assets');
const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };
const NAME = /^[a-z][a-z0-9-]{0,40}\.(js|css)$/;
const cache = new Map<string, Promise<{ type: string; body: string } | undefined>>();

async function load(name: string): Promise<{ type: string; body: string } | undefined> {
  try {
    return { type: TYPES[path.extname(name)]!, body: await fs.readFile(path.join(DIR, name), 'utf8') };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

export function readAsset(name: string): Promise<{ type: string; body: string } | undefined> {
  if (!NAME.test(name)) return Promise.resolve(undefined);
  let found = cache.get(name);
  if (!found) {
    found = load(name);
    cache.set(name, found);
  }
  return found;
}
