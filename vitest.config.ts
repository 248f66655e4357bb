import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The suites left out of `npm run test:fast`: browsers, Prism, real service and CLI processes,
 * two instances at once, picture bombs, a PostgreSQL outage, a full disk, proxies, key rotation and
 * the client package (npm pack and install). A test that starts a real process goes in a file of
 * its own, listed here.
 * `vitest run` runs both projects, every file once.
 */
const SLOW = [
  'test/browser/**/*.test.ts',
  'test/contract/**/*.test.ts',
  'test/client/mock.test.ts',
  'test/server.test.ts',
  'test/example.test.ts',
  'test/example-device.test.ts',
  'test/npm-start.test.ts',
  'test/docs/walkthrough-commands.test.ts',
  'test/cli/npm-script.test.ts',
  'test/mail/server-process.test.ts',
  'test/store/concurrency.test.ts',
  'test/hostile/pictures.test.ts',
  'test/store/database-outage.test.ts',
  'test/pictures/disk-full.test.ts',
  'test/security/trust-proxy.test.ts',
  'test/sessions/session-keys.test.ts',
  'test/oauth/signing-key-rotation.test.ts',
  'test/client/package.test.ts',
  'test/upstreams/upstream-provider.test.ts',
  'test/docs/backups.test.ts',
  'test/session-secret-file.test.ts',
];

/**
 * The suites `npm run test:pg` leaves out: they drive the same handlers over another transport
 * (a browser, Prism, the typed client), so once on SQLite is enough; the upstream provider's own
 * test touches no database of ours.
 */
export const SQLITE_ONLY = ['test/browser/**', 'test/contract/**', 'test/client/**', 'test/upstreams/upstream-provider.test.ts'];

/**
 * Run by their own commands: `npm run test:cluster` (vitest.cluster.config.ts: nginx in front of
 * three service processes on PostgreSQL) and `npm run test:conformance`
 * (vitest.conformance.config.ts: the OpenID conformance plans).
 */
export const RUN_ALONE = ['test/cluster/**', 'test/conformance/**'];

export default defineConfig({
  test: {
    // sharp and better-sqlite3 are native: separate processes are the safe pool for them.
    pool: 'forks',
    // A migrated database the test servers copy (test/migrated-template.ts).
    globalSetup: ['test/migrated-template.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // expect.poll waits for what a page does after an event (a script loading in a frame, a
    // fetch filling a field): 1 s, the default, is too short on a loaded CI machine.
    expect: { poll: { timeout: 10_000 } },
    projects: [
      { extends: true, test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...SLOW, ...RUN_ALONE] } },
      { extends: true, test: { name: 'slow', include: SLOW } },
    ],
  },
});
