// The layers `npm run lint` holds (`npm run lint:layers`: depcruise over src/, client/ and scripts/).
// docs/development.md#how-the-code-is-laid-out describes them; test/layers.test.ts proves each
// rule fails on a probe import. Type-only imports count (tsPreCompilationDeps): an `import type`
// is still a dependency in meaning, and leaving them out would let a cycle or a wrong-way edge
// hide behind one; the tree has none, so no rule needs an exception for types.
//
// "The domain layer" below is everything in src/ but the HTTP shell and its callers: src/http/,
// src/handlers/, src/pages/ (HTML for the handlers), src/cli/, src/server.ts and src/docs/.

/**
 * The order of src/'s folders and top-level files, lowest first: each imports only what comes
 * before it (the `order-*` rules below), so no two import each other and no arrow runs back up.
 * docs/development.md#how-the-code-is-laid-out gives the reasons; test/layers.test.ts proves each
 * rule fires on a probe. A new folder goes in here, where its imports put it.
 */
export const FOLDER_ORDER = [
  'domain', // the shared vocabulary: records, typed errors, text rules, lifetimes
  'contract.ts', // the contract's path and enums
  'docs', // the published contract and its reference page
  'config.ts',
  'log.ts',
  'audit.ts', // the audit trail's events; its listeners are handed in
  'store', // persistence
  'metrics',
  'mail',
  'security', // secrets, sealing, rate limits, return paths, proxies
  'purge',
  'pictures',
  'sessions', // the session and its CSRF token
  'accounts', // people: sign-up, sign-in, passwords, factors, mail links, suspensions
  'moderation',
  'oauth', // apps, authorization, grants, tokens, keys: built on accounts
  'games',
  'upstreams', // signing in through another account
  'privacy', // what reads every feature for a person: the data export
  'pages', // HTML templates and the pages' scripts
  'http', // the request pipeline and the page controllers
  'handlers', // one per operationId
  'cli',
  'demo.ts',
  'app.ts', // the composition: deps, handlers, pipeline
  'server.ts', // the entry
];

/** A folder (`name/`) or a top-level file (`name.ts`) of src/, as a path pattern without anchors. */
const where = (name) => (name.endsWith('.ts') ? `src/${name.replace('.', '[.]')}$` : `src/${name}/`);

/** One rule per entry of FOLDER_ORDER: it imports nothing of src/ that comes after it. */
const ORDER_RULES = FOLDER_ORDER.slice(0, -1).map((name, i) => ({
  name: `order-${name}`,
  comment: `src/${name} comes before ${FOLDER_ORDER.slice(i + 1).join(', ')} in FOLDER_ORDER: it imports none of them.`,
  severity: 'error',
  from: { path: `^${where(name)}` },
  to: { path: `^(${FOLDER_ORDER.slice(i + 1).map(where).join('|')})` },
}));

/** The outer layers: they may import the domain, never the other way round. */
const SHELL = '^src/(http|handlers|pages|cli|docs)/|^src/(server|app)[.]ts$';

export default {
  forbidden: [
    ...ORDER_RULES,
    {
      name: 'no-circular',
      comment:
        'A cycle means neither module can be understood, tested or loaded first without the other ' +
        '(and under ESM one of them sees the other half-initialised). Type-only imports count.',
      severity: 'error',
      from: { path: '^(src|client|scripts)/' },
      to: { circular: true },
    },
    {
      name: 'no-unresolvable',
      comment:
        'Every relative import resolves to a file: otherwise the other rules pass vacuously (an import ' +
        'the resolver cannot follow is an edge no rule sees).',
      severity: 'error',
      from: { path: '^(src|client|scripts)/' },
      to: { couldNotResolve: true },
    },
    {
      name: 'store-imports-store-and-domain',
      comment:
        'The store is persistence only: it speaks the domain\'s vocabulary (src/domain/) and knows ' +
        'nothing of OAuth, accounts, HTTP or configuration (npm packages and node builtins are fine).',
      severity: 'error',
      from: { path: '^src/store/' },
      to: { path: '^(src|test|scripts|client|generated)/', pathNot: '^src/(store|domain)/' },
    },
    {
      name: 'domain-imports-domain',
      comment:
        'src/domain/ is the shared vocabulary (record types, typed errors, text rules, the escaping ' +
        'HTML template, the database location): everything may import it, so it imports nothing of ' +
        'the project but itself.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: '^(src|test|scripts|client|generated)/', pathNot: '^src/domain/' },
    },
    {
      name: 'config-imports-domain',
      comment:
        'src/config.ts is read by every layer (the store included), so it depends on none of them: ' +
        'what it shares with one (the database location) lives in src/domain/.',
      severity: 'error',
      from: { path: '^src/config[.]ts$' },
      to: { path: '^(src|test|scripts|client|generated)/', pathNot: '^src/domain/' },
    },
    {
      name: 'domain-not-to-shell',
      comment:
        'Domain modules are plain functions over injected dependencies: they never reach up into the ' +
        'HTTP shell, the handlers or the pages (those call them, and a side effect they need is ' +
        'injected or subscribes to the audit events instead).',
      severity: 'error',
      from: { path: '^src/', pathNot: SHELL },
      to: { path: '^src/(http|handlers|pages)/' },
    },
    {
      name: 'handlers-not-to-handlers',
      comment:
        'One file per operationId, each thin: what two handlers share belongs in the domain or in ' +
        'src/http/ (Handler<Op> and AppDeps are in src/http/handler.ts), not in a third handler. The ' +
        'one exception: src/handlers/index.ts, the table that imports every handler.',
      severity: 'error',
      from: { path: '^src/handlers/', pathNot: '^src/handlers/index[.]ts$' },
      to: { path: '^src/handlers/' },
    },
    {
      name: 'src-not-to-test-or-scripts',
      comment: 'What ships (src/) never depends on the tests or the scripts, which are not built or deployed.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|scripts)/' },
    },
    {
      name: 'browser-scripts-self-contained',
      comment:
        'The pages\' scripts run in browsers, bundled by esbuild: they import each other, the element ' +
        'ids the templates share (src/pages/ids.ts), the contract\'s types (generated/api.ts), the game ' +
        'SDK (the play page shares its list of error codes) and two browser packages, never server code ' +
        '(it would be bundled into the page, or fail to).',
      severity: 'error',
      from: { path: '^src/pages/scripts/' },
      to: { pathNot: '^(src/pages/scripts/|src/pages/ids[.]ts$|generated/api[.]ts$|client/sdk/game[.]ts$|node_modules/(openapi-fetch|@simplewebauthn/browser)/)' },
    },
    {
      name: 'game-sdk-self-contained',
      comment: 'The game SDK (client/sdk/game.ts) is one module without dependencies: a game imports it from the service or copies it.',
      severity: 'error',
      from: { path: '^client/sdk/' },
      to: { pathNot: '^client/sdk/' },
    },
    {
      name: 'client-self-contained',
      comment:
        'The client package (client/package.json) ships client/ and the generated contract types only ' +
        '(client/tsconfig.build.json): an import of src/ would not be in the package.',
      severity: 'error',
      from: { path: '^client/' },
      to: { path: '^(src|test|scripts)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Build output.
    exclude: { path: '^(client/dist|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Only what the rules above need is derived (no metrics, no orphans): faster.
    skipAnalysisNotInRules: true,
  },
};
