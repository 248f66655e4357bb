/**
 * openapi.yaml, for the code that takes a rule from it rather than restating it (a parameter's
 * pattern, an enum): each rule is written once, in the contract. Read and parsed once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';
import type { components } from '../generated/api.js';

/** openapi.yaml at the project root: one level up from src/, two from the compiled dist/src/. */
export const CONTRACT_PATH = ((): string => {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.resolve(here, '..', 'openapi.yaml'), path.resolve(here, '..', '..', 'openapi.yaml')];
  return candidates.find((p) => fs.existsSync(p)) ?? candidates[0]!;
})();

type Node = Record<string, unknown>;
let document: Node | undefined;

function contract(): Node {
  document ??= yaml.load(fs.readFileSync(CONTRACT_PATH, 'utf8')) as Node;
  return document;
}

/** Follows a local `$ref` (`#/components/...`) to the node it names. */
function resolve(node: unknown): Node {
  let current = node as Node;
  for (let hops = 0; typeof current?.$ref === 'string'; hops++) {
    if (hops > 8) throw new Error(`openapi.yaml: $ref chain too long at ${String(current.$ref)}`);
    current = String(current.$ref)
      .replace(/^#\//, '')
      .split('/')
      .reduce<Node>((n, key) => n[key] as Node, contract());
  }
  if (current === undefined) throw new Error('openapi.yaml: unresolvable $ref');
  return current;
}

function operation(operationId: string): Node {
  for (const item of Object.values(contract().paths as Node)) {
    for (const op of Object.values(item as Node)) {
      if ((op as Node | undefined)?.operationId === operationId) return op as Node;
    }
  }
  throw new Error(`openapi.yaml has no operation ${operationId}`);
}

/** The schema of an operation's parameter, with `$ref`s followed. */
function parameterSchema(operationId: string, location: 'path' | 'query' | 'header', name: string): Node {
  const parameter = ((operation(operationId).parameters ?? []) as unknown[])
    .map(resolve)
    .find((p) => p.in === location && p.name === name);
  if (!parameter) throw new Error(`openapi.yaml: ${operationId} has no ${location} parameter ${name}`);
  return resolve(parameter.schema);
}

/** A parameter's `pattern` as a RegExp (its capture groups are the contract's too). */
export function parameterPattern(operationId: string, location: 'path' | 'query' | 'header', name: string): RegExp {
  const { pattern } = parameterSchema(operationId, location, name);
  if (typeof pattern !== 'string') throw new Error(`openapi.yaml: ${operationId} ${location} parameter ${name} has no pattern`);
  return new RegExp(pattern);
}

type Schemas = components['schemas'];
/** The schemas the generator typed as strings: those an `enum` can list. */
type StringSchema = { [Name in keyof Schemas]: Schemas[Name] extends string ? Name : never }[keyof Schemas];

/**
 * The values of a string schema's `enum`, in the contract's order, typed by the schema's generated
 * type: both come from the same lines, and `npm run generate:check` keeps them in step.
 */
export function schemaEnum<Name extends StringSchema>(name: Name): readonly Schemas[Name][] {
  const values = resolve(((contract().components as Node).schemas as Node)[name]).enum;
  if (!Array.isArray(values) || !values.every((v) => typeof v === 'string')) throw new Error(`openapi.yaml: schema ${name} has no enum of strings`);
  return values as Schemas[Name][];
}
