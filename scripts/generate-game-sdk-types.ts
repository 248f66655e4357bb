/**
 * The game SDK's declarations (generated/game.d.ts, served at /sdk/game.d.ts) made from its source,
 * client/sdk/game.ts, by the TypeScript compiler: `npm run generate` runs this file to write them,
 * `npm run generate:check` (scripts/check-generated.ts) fails when the committed file differs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

const root = path.resolve(import.meta.dirname, '..');
const SDK_SOURCE = path.join(root, 'client', 'sdk', 'game.ts');
export const SDK_TYPES = path.join(root, 'generated', 'game.d.ts');

const HEADER = '// Generated from client/sdk/game.ts by `npm run generate`: do not edit.\n';

export function gameSdkTypes(): string {
  let out: string | undefined;
  const program = ts.createProgram([SDK_SOURCE], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    types: [],
    strict: true,
    declaration: true,
    emitDeclarationOnly: true,
    removeComments: false,
  });
  const diagnostics = ts.getPreEmitDiagnostics(program);
  if (diagnostics.length) throw new Error(ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' }));
  program.emit(program.getSourceFile(SDK_SOURCE), (name, text) => {
    if (name.endsWith('.d.ts')) out = text;
  });
  if (out === undefined) throw new Error('The compiler emitted no declarations for client/sdk/game.ts');
  return HEADER + out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) fs.writeFileSync(SDK_TYPES, gameSdkTypes());
