/**
 * One spelling rule for the contract's field names (docs/decisions.md#conventions): the fields of
 * 0.1.0 keep theirs, WebAuthn's objects keep WebAuthn's, and every other field is snake_case.
 */
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const contract = yaml.load(fs.readFileSync(path.join(root, 'openapi.yaml'), 'utf8')) as { paths: object; components: { schemas: Record<string, object> } };

/** The interface's camelCase fields (0.1.0), and the HTML forms' CSRF token field (0.1.0). */
const SEED_FIELDS = new Set(['pfpTimestamp', 'equippedFlair', 'playMinutes', 'lastHeartbeat', 'modLevel', 'addedMinutes', '_csrf']);
/** Schemas that are WebAuthn's JSON (PublicKeyCredentialCreationOptionsJSON and its kin). */
const WEBAUTHN_SCHEMAS = new Set(['PasskeyCreationOptions', 'PasskeyRequestOptions', 'PasskeyRegistration', 'PasskeyAssertion']);
const SNAKE_CASE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

/** Every property name under `node`, with where it is. */
function fields(node: unknown, where: string, out: [string, string][]): [string, string][] {
  if (Array.isArray(node)) node.forEach((item, i) => fields(item, `${where}/${i}`, out));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      if (key === 'example' || key === 'examples') continue;
      if (key === 'properties' && value && typeof value === 'object') for (const name of Object.keys(value)) out.push([name, where]);
      fields(value, `${where}/${key}`, out);
    }
  }
  return out;
}

describe('field names of openapi.yaml', () => {
  it('are snake_case, but for the fields of 0.1.0 and WebAuthn objects', () => {
    const all = [
      ...Object.entries(contract.components.schemas)
        .filter(([name]) => !WEBAUTHN_SCHEMAS.has(name))
        .flatMap(([name, schema]) => fields(schema, `#/components/schemas/${name}`, [])),
      ...fields(contract.paths, '#/paths', []),
    ];
    expect(all.length).toBeGreaterThan(100);
    expect(all.filter(([name]) => !SNAKE_CASE.test(name) && !SEED_FIELDS.has(name)).map(([name, where]) => `${name} at ${where}`)).toEqual([]);
  });

  it('the WebAuthn objects are the ones the passkey operations carry', () => {
    for (const name of WEBAUTHN_SCHEMAS) expect(contract.components.schemas[name], name).toBeDefined();
  });
});
