/**
 * The layer rules of `npm run lint:layers` (.dependency-cruiser.js) hold: each one fails on a
 * wrong-way import, run with the project's own config over a small tree of probe files in a
 * temporary directory (the real tree is never written to, so a test run cannot leave a probe
 * behind for the others' lint), and the real src/, client/ and scripts/ break none of them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cruise, type ICruiseOptions } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const CONFIG = path.join(root, '.dependency-cruiser.js');

/** One violation as `rule: from -> to` (or `rule: a -> b -> a` for a cycle). */
async function violations(dir: string, options: ICruiseOptions): Promise<string[]> {
  const tsConfig = extractTSConfig(path.join(dir, 'tsconfig.json'));
  const existing = ['src', 'client', 'scripts'].filter((d) => fs.existsSync(path.join(dir, d)));
  const { output } = await cruise(existing, { ...options, baseDir: dir }, {}, { tsConfig });
  if (typeof output === 'string') throw new Error('the cruise returned a report, not a result');
  return output.summary.violations
    .map((v) => `${v.rule.name}: ${v.cycle ? [v.from, ...v.cycle.map((c) => c.name)].join(' -> ') : `${v.from} -> ${v.to}`}`)
    .sort();
}

/**
 * The probe tree: file -> its imports. Each wrong-way edge is named with the rule it breaks; the
 * other edges are ones the rules allow (npm and node builtins, the domain from anywhere, the
 * handlers' table, the shell importing the domain), so a rule that is too wide fails here as well.
 */
const PROBES: Record<string, string[]> = {
  'src/domain/users.ts': ['node:crypto', 'some-package'],
  'src/domain/probe.ts': ['../http/policy.js'], // domain-imports-domain and domain-not-to-shell
  'src/http/policy.ts': ['../domain/users.js', '../handlers/index.js', '../pages/html.js'], // order-http: the pipeline gets the handlers' table from src/app.ts
  'src/http/handler.ts': ['../domain/users.js'],
  'src/pages/html.ts': ['../domain/users.js'],
  'src/accounts/a.ts': ['./b.js'], // no-circular, with b.ts's type-only import back
  'src/accounts/b.ts': ['type ./a.js'],
  'src/oauth/secrets.ts': ['../domain/users.js', '../store/users.js'],
  'src/store/users.ts': ['../domain/users.js', './rows.js', 'node:fs', 'some-package', '../oauth/secrets.js'], // store-imports-store-and-domain (and a cycle)
  'src/store/rows.ts': [],
  'src/store/connection.ts': ['../domain/users.js'],
  'src/handlers/index.ts': ['./getThing.js', './web.js'],
  'src/handlers/getThing.ts': ['../http/handler.js', './web.js', '../domain/users.js', '../pages/html.js'], // handlers-not-to-handlers
  'src/handlers/web.ts': ['../http/handler.js'],
  'src/mail/messages.ts': ['../../test/helpers.js', '../pages/html.js'], // src-not-to-test-or-scripts, domain-not-to-shell
  'src/config.ts': ['./domain/users.js', './store/connection.js'], // config-imports-domain
  'src/cli/admin.ts': ['../pages/html.js', '../handlers/web.js', '../config.js'],
  'src/server.ts': ['./http/policy.js', './config.js', '../scripts/seed.js'], // src-not-to-test-or-scripts
  'src/typo.ts': ['./no-such-module.js'], // no-unresolvable
  'client/index.ts': ['../src/domain/users.js'], // client-self-contained
  'client/sdk/game.ts': ['../index.js'], // game-sdk-self-contained
  'src/pages/ids.ts': [],
  'src/pages/scripts/api.ts': ['../../../generated/api.js'],
  'src/pages/scripts/page.ts': ['./api.js', '../ids.js', '../html.js', 'some-package'], // browser-scripts-self-contained (twice)
  'generated/api.ts': [],
  'scripts/bench.ts': ['../src/server.js', '../test/helpers.js'],
  'scripts/seed.ts': [],
  'test/helpers.ts': [],
};

const EXPECTED = [
  'browser-scripts-self-contained: src/pages/scripts/page.ts -> node_modules/some-package/index.js',
  'browser-scripts-self-contained: src/pages/scripts/page.ts -> src/pages/html.ts',
  'client-self-contained: client/index.ts -> src/domain/users.ts',
  'config-imports-domain: src/config.ts -> src/store/connection.ts',
  'domain-imports-domain: src/domain/probe.ts -> src/http/policy.ts',
  'domain-not-to-shell: src/domain/probe.ts -> src/http/policy.ts',
  'domain-not-to-shell: src/mail/messages.ts -> src/pages/html.ts',
  'game-sdk-self-contained: client/sdk/game.ts -> client/index.ts',
  'handlers-not-to-handlers: src/handlers/getThing.ts -> src/handlers/web.ts',
  'no-circular: src/accounts/a.ts -> src/accounts/b.ts -> src/accounts/a.ts',
  'no-circular: src/oauth/secrets.ts -> src/store/users.ts -> src/oauth/secrets.ts',
  'no-unresolvable: src/typo.ts -> ./no-such-module.js',
  'src-not-to-test-or-scripts: src/mail/messages.ts -> test/helpers.ts',
  'src-not-to-test-or-scripts: src/server.ts -> scripts/seed.ts',
  'store-imports-store-and-domain: src/store/users.ts -> src/oauth/secrets.ts',
  // The folder order (order-*) reports these probes' wrong-way edges too, and the older rules some
  // of the order probes' (each order rule's own probe is generated: orderProbes).
  'order-config.ts: src/config.ts -> src/store/connection.ts',
  'order-domain: src/domain/probe.ts -> src/http/policy.ts',
  'order-http: src/http/policy.ts -> src/handlers/index.ts',
  'order-mail: src/mail/messages.ts -> src/pages/html.ts',
  'order-store: src/store/users.ts -> src/oauth/secrets.ts',
  'config-imports-domain: src/config.ts -> src/log.ts',
  'domain-imports-domain: src/domain/order-probe.ts -> src/contract.ts',
  'domain-not-to-shell: src/privacy/order-probe.ts -> src/pages/order-target.ts',
  'store-imports-store-and-domain: src/store/order-probe.ts -> src/metrics/order-target.ts',
];

/** A file of a FOLDER_ORDER entry: the top-level file itself, or one in the folder. */
const fileOf = (name: string, file: string): string => (name.endsWith('.ts') ? `src/${name}` : `src/${name}/${file}`);

/**
 * One probe per `order-*` rule: a file of each entry of FOLDER_ORDER imports a file of the entry
 * right after it (the nearest wrong way), which that entry's rule alone must report.
 */
function orderProbes(order: readonly string[]): { probes: Record<string, string[]>; expected: string[] } {
  const probes: Record<string, string[]> = {};
  const expected: string[] = [];
  order.forEach((name, i) => {
    const target = fileOf(name, 'order-target.ts');
    probes[target] ??= [];
    const next = order[i + 1];
    if (!next) return;
    const from = fileOf(name, 'order-probe.ts');
    const to = fileOf(next, 'order-target.ts');
    const spec = path.posix.relative(path.posix.dirname(from), to).replace(/[.]ts$/, '.js');
    (probes[from] ??= []).push(spec.startsWith('.') ? spec : `./${spec}`);
    expected.push(`order-${name}: ${from} -> ${to}`);
  });
  return { probes, expected };
}

function source(imports: string[]): string {
  const lines = imports.map((spec, i) =>
    spec.startsWith('type ') ? `import type * as m${i} from '${spec.slice(5)}';\nexport type T${i} = typeof m${i};` : `import * as m${i} from '${spec}';\nexport const v${i} = m${i};`,
  );
  return `${lines.join('\n')}\nexport const probe = 1;\n`;
}

let options: ICruiseOptions;
let probes: string;
let expected: string[];
let FOLDER_ORDER: string[];
beforeAll(async () => {
  options = await extractDepcruiseOptions(CONFIG);
  ({ FOLDER_ORDER } = (await import(pathToFileURL(CONFIG).href)) as { FOLDER_ORDER: string[] });
  const order = orderProbes(FOLDER_ORDER);
  const tree: Record<string, string[]> = { ...order.probes };
  for (const [file, imports] of Object.entries(PROBES)) tree[file] = [...imports, ...(tree[file] ?? [])];
  expected = [...EXPECTED, ...order.expected].sort();
  probes = fs.mkdtempSync(path.join(os.tmpdir(), 'layers-'));
  fs.writeFileSync(path.join(probes, 'tsconfig.json'), fs.readFileSync(path.join(root, 'tsconfig.json')));
  for (const [file, imports] of Object.entries(tree)) {
    fs.mkdirSync(path.dirname(path.join(probes, file)), { recursive: true });
    fs.writeFileSync(path.join(probes, file), source(imports));
  }
  // An npm package, which the store and the domain may import like any other module.
  const somePackage = path.join(probes, 'node_modules', 'some-package');
  fs.mkdirSync(somePackage, { recursive: true });
  fs.writeFileSync(path.join(somePackage, 'package.json'), JSON.stringify({ name: 'some-package', type: 'module', main: 'index.js' }));
  fs.writeFileSync(path.join(somePackage, 'index.js'), 'export const probe = 1;\n');
});
afterAll(() => {
  if (probes) fs.rmSync(probes, { recursive: true, force: true });
});

describe('layer rules (.dependency-cruiser.js)', () => {
  it('report exactly the wrong-way imports of the probe tree, by rule', async () => {
    expect(await violations(probes, options)).toEqual(expected);
  });

  it('each have a probe that breaks them', () => {
    const rules = options.ruleSet?.forbidden ?? [];
    expect(new Set(expected.map((line) => line.split(':')[0]))).toEqual(new Set(rules.map((rule) => rule.name)));
    expect(rules.every((rule) => rule.severity === 'error')).toBe(true);
  });

  it('place every folder and top-level file of src/ in the order, once', () => {
    const entries = fs.readdirSync(path.join(root, 'src'), { withFileTypes: true }).filter((e) => e.isDirectory() || e.name.endsWith('.ts'));
    expect([...FOLDER_ORDER].sort()).toEqual(entries.map((e) => e.name).sort());
  });

  it('leave no file of src/ over 400 lines (a file that grows past it is split where its parts meet)', () => {
    const files = (fs.readdirSync(path.join(root, 'src'), { recursive: true }) as string[]).filter((f) => f.endsWith('.ts'));
    const long = files.map((f) => [f, fs.readFileSync(path.join(root, 'src', f), 'utf8').split('\n').length - 1] as const).filter(([, n]) => n > 400);
    expect(files.length).toBeGreaterThan(300);
    expect(long).toEqual([]);
  });

  it('hold in the real tree', async () => {
    expect(await violations(root, options)).toEqual([]);
  });
});
