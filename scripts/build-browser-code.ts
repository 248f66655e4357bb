/**
 * `npm run build`'s browser half: the pages' scripts and the game SDK, bundled as the service
 * bundles them at start (src/pages/browser-code.ts), written to dist/bundled/, where the compiled
 * service reads them (so production needs neither the TypeScript sources nor esbuild).
 */
import fs from 'node:fs';
import path from 'node:path';
import { bundleBrowserCode } from '../src/pages/browser-code.js';

const out = path.resolve(import.meta.dirname, '..', 'dist', 'bundled');
fs.rmSync(out, { recursive: true, force: true });
for (const [name, text] of await bundleBrowserCode()) {
  fs.mkdirSync(path.dirname(path.join(out, name)), { recursive: true });
  fs.writeFileSync(path.join(out, name), text);
}
process.stdout.write(`browser code bundled into ${path.relative(process.cwd(), out) || out}\n`);
