/**
 * The purge under load: users/info p99 while the background purge deletes a backlog of expired
 * rows, against the same server with the purge off. `npm run bench:purge [-- --rows 1000000]`
 * (SQLite in a temp folder; DATABASE_URL=postgres://... an EMPTY PostgreSQL database instead).
 * Prints one JSON object: both latency summaries and how long the purge took.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { parseDatabaseUrl } from '../src/domain/database.js';
import type { KnexStore } from '../src/store/knex-store.js';
import { openStoreAt } from '../src/store/open.js';
import { spawnService, type SpawnedService } from '../test/spawn-service.js';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    connections: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '15' },
  },
});
const rows = Number(values.rows);
const connections = Number(values.connections);
const baselineSeconds = Number(values.seconds);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'purge-bench-'));
const databaseUrl = process.env.DATABASE_URL ?? path.join(dir, 'bench.sqlite');
const postgres = parseDatabaseUrl(databaseUrl).dialect === 'postgres';
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));

/** 60 % tokens, 20 % codes (past the replay window), 20 % sessions, all expired an hour ago. */
async function seed(store: KnexStore): Promise<void> {
  const k = store.knex;
  const now = Date.now();
  const user = await store.users.createUser({ name: 'bench', email: 'bench@example.com', passwordHash: 'x' }, now);
  await k('apps').insert({ client_id: 'bench_client', secret_hash: 'x'.repeat(64), owner_id: user.id, name: 'Bench', redirect_uris: '[]', created_at: now });
  const expired = now - 3_600_000;
  const tokens = Math.round(rows * 0.6);
  const codes = Math.round(rows * 0.2);
  const sessions = rows - tokens - codes;
  // Keys made by the database itself: a million rows in seconds, without a million round trips.
  const key = postgres ? `md5(x::text) || md5((x + 1)::text)` : 'lower(hex(randomblob(32)))';
  const series = (n: number) => (postgres ? `generate_series(1, ${n}) as s(x)` : `(with recursive c(x) as (select 1 union all select x + 1 from c where x < ${n}) select x from c)`);
  await k.raw(`insert into access_tokens (token_hash, client_id, user_id, scopes, code_hash, expires_at, revoked_at, created_at)
    select ${key}, 'bench_client', ${user.id}, 'userinfo', null, ${expired}, null, ${expired - 600_000} from ${series(tokens)}`);
  await k.raw(`insert into auth_codes (code_hash, client_id, user_id, scopes, redirect_uri, code_challenge, expires_at, used_at, created_at)
    select ${key}, 'bench_client', ${user.id}, 'userinfo', null, null, ${expired - 600_000}, null, ${expired - 900_000} from ${series(codes)}`);
  await k.raw(`insert into sessions (id_hash, data, expires_at, user_id) select ${key}, '{}', ${expired}, null from ${series(sessions)}`);
}

async function remaining(store: KnexStore): Promise<number> {
  let total = 0;
  for (const table of ['access_tokens', 'auth_codes', 'sessions']) {
    total += Number(((await store.knex(table).count({ n: '*' }).first()) as { n: unknown }).n);
  }
  return total;
}

function startServer(purgeIntervalSeconds: number): Promise<SpawnedService> {
  return spawnService({
    env: {
      DATABASE_URL: databaseUrl,
      PICTURES_DIR: path.join(dir, 'pictures'),
      // Required on PostgreSQL.
      SESSION_SECRET: 'purge-bench-session-secret-0123456789abcdef',
      LOG_LEVEL: 'warn',
      DEMO_DATA: 'false',
      PURGE_INTERVAL_SECONDS: String(purgeIntervalSeconds),
      PURGE_BATCH_SIZE: process.env.PURGE_BATCH_SIZE,
    },
    readySeconds: 60,
  });
}

function summary(result: autocannon.Result) {
  return {
    requests: result.requests.total,
    rps: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    maxMs: result.latency.max,
    non2xx: result.non2xx + result.errors,
  };
}

const store = openStoreAt(databaseUrl);
await store.migrate();
const seedStart = Date.now();
await seed(store);
const seeded = await remaining(store);
process.stderr.write(`seeded ${seeded} expired rows in ${((Date.now() - seedStart) / 1000).toFixed(1)} s\n`);

// Baseline: the same database and backlog, purge off.
const off = await startServer(0);
const url = `${off.url}/api/users/info?id=1`;
await autocannon({ url, connections, duration: 2 }); // warm-up
const baseline = await autocannon({ url, connections, duration: baselineSeconds });
await off.stop();

// While purging: load runs from before the first purge until the backlog is gone.
const on = await startServer(1);
const purgeUrl = `${on.url}/api/users/info?id=1`;
await autocannon({ url: purgeUrl, connections, duration: 1 }); // warm-up (the first purge starts within 1 s)
const start = Date.now();
let purgeSeconds = Number.NaN;
const load = autocannon({ url: purgeUrl, connections, duration: 3600 });
for (;;) {
  await new Promise((r) => setTimeout(r, 250));
  if ((await remaining(store)) === 0) {
    purgeSeconds = (Date.now() - start) / 1000;
    break;
  }
}
// autocannon's promise is also its running instance (the types leave stop() out).
(load as unknown as { stop(): void }).stop();
const during = await load;
await on.stop();
await store.close();

const out = {
  database: postgres ? 'postgres' : 'sqlite',
  rows: seeded,
  batchSize: Number(process.env.PURGE_BATCH_SIZE ?? 250),
  connections,
  purgeSeconds,
  baseline: summary(baseline),
  whilePurging: summary(during),
};
process.stdout.write(`${JSON.stringify(out)}\n`);
process.exit(0);
