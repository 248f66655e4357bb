/**
 * Runs the store and API suites again on PostgreSQL (TEST_DATABASE=postgres): each test server gets
 * a new database on the server TEST_POSTGRES_URL names. Without TEST_POSTGRES_URL the run is skipped
 * with a notice, except under CI=true, where a missing PostgreSQL is a failure (.ci/run starts one).
 */
import { spawnSync } from 'node:child_process';
import { SQLITE_ONLY } from '../vitest.config.js';

const url = process.env.TEST_POSTGRES_URL;
if (!url) {
  if (process.env.CI === 'true') {
    process.stderr.write('CI=true but TEST_POSTGRES_URL is not set: the PostgreSQL suites cannot run\n');
    process.exit(1);
  }
  process.stdout.write(
    '\n*** PostgreSQL suites SKIPPED: TEST_POSTGRES_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/postgres) ***\n\n',
  );
  process.exit(0);
}
process.stdout.write(`PostgreSQL suites: store and API tests on ${url.replace(/\/\/[^@/]*@/, '//***@')}\n`);
// Everything but SQLITE_ONLY (store, domain, API, concurrency, two instances) runs again: the fast
// tier as `npm run test:fast` runs it (one module graph per worker, both cores), so CI runs each of
// its files once isolated (on SQLite) and once sharing modules (here); the slow tier isolated.
const runs = [
  ['--project', 'fast', '--no-isolate', '--maxWorkers=2'],
  ['--project', 'slow'],
];
for (const run of runs) {
  const result = spawnSync(
    'npx',
    ['vitest', 'run', ...run, '--passWithNoTests', ...SQLITE_ONLY.flatMap((glob) => ['--exclude', glob]), ...process.argv.slice(2)],
    { stdio: 'inherit', env: { ...process.env, TEST_DATABASE: 'postgres' } },
  );
  if (result.status !== 0) process.exit(result.status ?? 1);
}
