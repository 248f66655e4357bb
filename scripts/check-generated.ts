/**
 * Fails when generated/ differs from what its sources produce (api.ts from openapi.yaml, game.d.ts
 * from client/sdk/game.ts), or when the client package's version is not the contract's
 * info.version (run by npm test and CI).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import yaml from 'js-yaml';
import { gameSdkTypes, SDK_TYPES } from './generate-game-sdk-types.js';

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
if (gameSdkTypes() !== fs.readFileSync(SDK_TYPES, 'utf8')) {
  process.stderr.write('generated/game.d.ts is out of date with client/sdk/game.ts: run `npm run generate` and commit it.\n');
  process.exit(1);
}
const contractVersion = (yaml.load(fs.readFileSync(path.join(root, 'openapi.yaml'), 'utf8')) as { info: { version: string } }).info.version;
const clientVersion = (JSON.parse(fs.readFileSync(path.join(root, 'client/package.json'), 'utf8')) as { version: string }).version;
if (clientVersion !== contractVersion) {
  process.stderr.write(`client/package.json's version ${clientVersion} is not openapi.yaml's info.version ${contractVersion}: the client package carries the contract's version.\n`);
  process.exit(1);
}
process.stdout.write(`generated/ is in sync with openapi.yaml and the game SDK; the client package is at the contract's version ${contractVersion}\n`);
