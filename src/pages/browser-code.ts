/**
 * The code browsers run, as the service serves it: the pages' scripts (src/pages/scripts/, one
 * bundle per page, each an IIFE at /assets/<page>.js) and the game SDK (client/sdk/game.ts, an ES
 * module at /sdk/game.js, with its declarations at /sdk/game.d.ts, generated from it by
 * `npm run generate` into generated/game.d.ts).
 *
 * Bundled once per process by esbuild, at the first use (createApp awaits it, so a script that does
 * not bundle stops the start): from the TypeScript sources when they are there (`npm start`, the
 * tests), or read from `bundled/` beside the compiled service, which `npm run build` writes with the
 * same bundles (scripts/build-browser-code.ts), so production needs neither the sources nor esbuild.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

interface BrowserFile {
  type: string;
  body: string;
  /** A strong validator of `body` (quoted). */
  etag: string;
}

const JS = 'text/javascript; charset=utf-8';

/** The pages, by the name their bundle is served under (/assets/<name>.js). */
export const PAGE_SCRIPTS = ['signin', 'account', 'apps', 'games', 'play', 'profile', 'moderation'] as const;
export type PageScript = (typeof PAGE_SCRIPTS)[number];

/** The repository's root in the sources (src/pages/..), the build's root (dist/) when compiled. */
const ROOT = path.resolve(import.meta.dirname, '..', '..');
/** Where `npm run build` leaves the bundles, beside the compiled service. */
const PREBUILT = path.join(ROOT, 'bundled');

function file(type: string, body: string): BrowserFile {
  return { type, body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
}

/** Every served name ('assets/signin.js', 'sdk/game.js', 'sdk/game.d.ts') and its text, bundled from the sources. */
export async function bundleBrowserCode(): Promise<Map<string, string>> {
  const { build } = await import('esbuild');
  const common = { bundle: true, write: false, platform: 'browser', target: 'es2022', charset: 'utf8', legalComments: 'none', logLevel: 'silent' } as const;
  const [pages, sdk] = await Promise.all([
    build({
      ...common,
      entryPoints: Object.fromEntries(PAGE_SCRIPTS.map((name) => [name, path.join(ROOT, 'src', 'pages', 'scripts', `${name}.ts`)])),
      outdir: path.join(ROOT, 'assets'),
      format: 'iife',
      // Minified (the sources are the TypeScript; openapi-fetch and the WebAuthn library are most of
      // each bundle): 12-35 KB a page instead of 15-64 KB.
      minify: true,
    }),
    // Not minified: games read the module they import (4 KB).
    build({ ...common, entryPoints: [path.join(ROOT, 'client', 'sdk', 'game.ts')], outdir: path.join(ROOT, 'sdk'), format: 'esm' }),
  ]);
  const out = new Map<string, string>();
  for (const output of [...pages.outputFiles, ...sdk.outputFiles]) out.set(path.relative(ROOT, output.path).split(path.sep).join('/'), output.text);
  out.set('sdk/game.d.ts', await fs.promises.readFile(path.join(ROOT, 'generated', 'game.d.ts'), 'utf8'));
  return out;
}

async function readPrebuilt(): Promise<Map<string, string>> {
  const names = [...PAGE_SCRIPTS.map((name) => `assets/${name}.js`), 'sdk/game.js', 'sdk/game.d.ts'];
  return new Map(await Promise.all(names.map(async (name): Promise<[string, string]> => [name, await fs.promises.readFile(path.join(PREBUILT, name), 'utf8')])));
}

/** A name the service serves browser code under. */
type BrowserFileName = `assets/${PageScript}.js` | 'sdk/game.js' | 'sdk/game.d.ts';

let loaded: Promise<ReadonlyMap<string, BrowserFile>> | undefined;

/** Every served file, made once per process (createApp awaits the first call). */
export function browserCode(): Promise<ReadonlyMap<string, BrowserFile>> {
  loaded ??= (fs.existsSync(PREBUILT) ? readPrebuilt() : bundleBrowserCode()).then(
    (texts) => new Map([...texts].map(([name, body]) => [name, file(name.endsWith('.d.ts') ? 'application/typescript; charset=utf-8' : JS, body)])),
  );
  return loaded;
}

/** One served file (every name of the type is made by browserCode). */
export async function browserFile(name: BrowserFileName): Promise<BrowserFile> {
  const found = (await browserCode()).get(name);
  if (!found) throw new Error(`No browser code was made for ${name}`);
  return found;
}

/** The page script served as /assets/<name>, if `name` is one. */
export function pageScriptFile(name: string): BrowserFileName | undefined {
  const page = PAGE_SCRIPTS.find((p) => `${p}.js` === name);
  return page && `assets/${page}.js`;
}
