/**
 * The pages' scripts, stylesheet and icon: the files in assets/ beside this module, and the vendored
 * browser libraries (VENDORED, served from node_modules as they were installed), read once. Which
 * names may be asked for is the contract's rule (getAsset's `file` pattern, checked before the
 * handler runs); this module only knows which files it ships.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const DIR = path.join(import.meta.dirname, 'assets');
const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml; charset=utf-8' };
const require = createRequire(import.meta.url);

/**
 * Libraries the pages load, by the name they are served under: the package's own browser bundle,
 * found from where the package resolves (its `exports` name no path to the bundle itself).
 */
const VENDORED: Record<string, string> = {
  // @simplewebauthn/browser: its main entry is script/index.js; the UMD bundle (a global
  // `SimpleWebAuthnBrowser`) sits beside it in dist/bundle.
  'simplewebauthn-browser.js': path.join(path.dirname(require.resolve('@simplewebauthn/browser')), '..', 'dist', 'bundle', 'index.umd.min.js'),
};

/** Listed once: a name that is not one of these files is never turned into a path. */
const SHIPPED = new Map<string, string>([
  ...fs
    .readdirSync(DIR)
    .filter((name) => Object.hasOwn(TYPES, path.extname(name)))
    .map((name): [string, string] => [name, path.join(DIR, name)]),
  ...Object.entries(VENDORED),
]);
const cache = new Map<string, Promise<{ type: string; body: string }>>();

export function readAsset(name: string): Promise<{ type: string; body: string } | undefined> {
  const file = SHIPPED.get(name);
  if (file === undefined) return Promise.resolve(undefined);
  let found = cache.get(name);
  if (!found) {
    found = fs.promises.readFile(file, 'utf8').then((body) => ({ type: TYPES[path.extname(name)]!, body }));
    cache.set(name, found);
  }
  return found;
}
