/**
 * One handler file per operationId (docs/development.md#how-the-code-is-laid-out): every operation
 * of openapi.yaml has src/handlers/<operationId>.ts exporting `const <operationId>:
 * Handler<'<operationId>'>`, the folder holds nothing else but the registry (index.ts), no handler
 * imports another, and the HTTP shell reaches the handlers only through that registry.
 */
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const HANDLERS = path.join(root, 'src', 'handlers');
/** The files of src/handlers/ that are not an operation's. */
const EXCEPTIONS = ['index.ts'];
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

function operationIds(): string[] {
  const contract = yaml.load(fs.readFileSync(path.join(root, 'openapi.yaml'), 'utf8')) as {
    paths: Record<string, Record<string, { operationId?: string }>>;
  };
  const ids: string[] = [];
  for (const [route, item] of Object.entries(contract.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      if (!operation.operationId) throw new Error(`openapi.yaml: ${method.toUpperCase()} ${route} has no operationId`);
      ids.push(operation.operationId);
    }
  }
  return ids.sort();
}

/** The module specifiers a file imports (static imports and re-exports, type-only ones too). */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+'([^']+)'/gms)].map((m) => m[1]!);
}

const ids = operationIds();
const files = fs.readdirSync(HANDLERS).sort();

describe('src/handlers/', () => {
  it('reads the operations of openapi.yaml', () => {
    expect(ids.length).toBeGreaterThan(80);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('has a file for every operationId', () => {
    const missing = ids.filter((id) => !files.includes(`${id}.ts`));
    expect(missing).toEqual([]);
  });

  it('holds only operations and the registry', () => {
    const extra = files.filter((f) => !EXCEPTIONS.includes(f) && !ids.includes(f.replace(/\.ts$/, '')));
    expect(extra).toEqual([]);
  });

  it("exports const <operationId>: Handler<'<operationId>'> from each operation's file", () => {
    const wrong = ids.filter((id) => {
      const file = path.join(HANDLERS, `${id}.ts`);
      return fs.existsSync(file) && !new RegExp(`^export const ${id}: Handler<'${id}'> = `, 'm').test(fs.readFileSync(file, 'utf8'));
    });
    expect(wrong).toEqual([]);
  });

  it('never imports another handler file (only the registry imports them)', () => {
    const edges = files
      .filter((f) => !EXCEPTIONS.includes(f))
      .flatMap((f) => importsOf(path.join(HANDLERS, f)).filter((s) => s.startsWith('./')).map((s) => `${f} -> ${s}`));
    expect(edges).toEqual([]);
  });

  it('is reached only through the registry, which the composition (src/app.ts) hands to the pipeline; src/http/ imports no handler', () => {
    const dir = path.join(root, 'src', 'http');
    const edges = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.ts'))
      .flatMap((f) => importsOf(path.join(dir, f)).filter((s) => s.startsWith('../handlers/')).map((s) => `${f} -> ${s}`));
    expect(edges).toEqual([]);
    expect(importsOf(path.join(root, 'src', 'app.ts')).filter((s) => s.includes('handlers/'))).toEqual(['./handlers/index.js']);
  });
});
