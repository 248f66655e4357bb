/** Fails when generated/ differs from what openapi.yaml produces (run by npm test and CI). */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const tmp = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'generated-')), 'api.ts');
execFileSync(path.join(root, 'node_modules/.bin/openapi-typescript'), [path.join(root, 'openapi.yaml'), '-o', tmp], {
  stdio: ['ignore', 'ignore', 'inherit'],
});
const expected = fs.readFileSync(tmp, 'utf8');
const actual = fs.readFileSync(path.join(root, 'generated/api.ts'), 'utf8');
if (expected !== actual) {
  process.stderr.write('generated/api.ts is out of date with openapi.yaml: run `npm run generate` and commit it.\n');
  process.exit(1);
}
process.stdout.write('generated/ is in sync with openapi.yaml\n');
