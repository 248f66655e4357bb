/**
 * `npm run bench`: the compiled service (production config, seeded SQLite file) against baselines
 * on the same machine in the same run. autocannon on loopback, 50 connections, warm-up, then
 * `--repeat` timed runs; the median run (by req/s) is reported. A case is timed in pairs with its
 * baseline (each run followed by a baseline run) and its ratio is the median of the pairs'
 * ratios. Prints a table and writes bench-results/latest.json and bench-results/chart.svg.
 *
 * Options: --duration S (10) --warmup S (3) --repeat N (3) --connections N (50)
 *          --big-users N (1000000) --skip-build --quick (duration 3, warm-up 1, repeat 1, 100k big users)
 *          --only TEXT (run only the cases whose name contains TEXT, plus their baselines)
 *          --instructions N (5000; 2000 with --quick; 0 skips): requests per batch counted under
 *          valgrind's callgrind, until two batches agree (instructions per request; needs valgrind)
 * With TEST_POSTGRES_URL set (a throwaway cluster), the service is also driven on a PostgreSQL
 * database of its own created on that cluster (and dropped at the end): users/info, whois,
 * introspection, revocation, the token exchange and the refresh grant against PostgreSQL
 * baselines in the same run (Koa + a `pg` pool + one named prepared statement for the reads; Koa
 * + a `pg` pool + the exchange's two writes in one transaction, for the exchange and the refresh
 * grant alike), and a picture stored in the database against
 * koa-static. --pg-pool N (10) sets the pool size of both the service (DATABASE_POOL_SIZE) and
 * those baselines.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type autocannon from 'autocannon';
import sharp from 'sharp';
import { countInstructions, hasCallgrind, type InstructionCount } from './bench/instructions.js';
import type { LoadOutput, LoadSpec } from './bench/load.js';
import { BENCH_CLIENT, issueCodes, issueRefreshTokens, issueTokens, seedDatabase, seedPostgres } from './bench/seed.js';
import { waitForUrl } from './bench/wait.js';
import { freePort } from './free-port.js';

const root = path.resolve(import.meta.dirname, '..');
const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    repeat: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    'big-users': { type: 'string', default: '1000000' },
    'skip-build': { type: 'boolean', default: false },
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    instructions: { type: 'string' },
    'pg-pool': { type: 'string', default: '10' },
  },
});
const duration = args.quick ? 3 : Number(args.duration);
const warmup = args.quick ? 1 : Number(args.warmup);
const repeat = args.quick ? 1 : Number(args.repeat);
const connections = Number(args.connections);
const bigUsers = args.quick ? 100_000 : Number(args['big-users']);
const SMALL_USERS = 1000;
const instructionRequests = Number(args.instructions ?? (args.quick ? 2000 : 5000));
if (!Number.isInteger(instructionRequests) || instructionRequests < 0) throw new Error('--instructions takes a whole number of requests (0 skips)');

const children: ChildProcess[] = [];
process.on('exit', () => children.forEach((c) => c.kill('SIGKILL')));
// Interrupted, the servers (and a callgrind run) must not outlive the bench.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));

/**
 * Servers on one core, the load generator (autocannon, a fresh process per run) on another, as
 * the targets were measured: a server's throughput is then its own cost per request, not how the
 * scheduler shares two cores between it, its helper threads and autocannon (unpinned, the
 * ratios to the baselines drifted by 10-20 points between runs). taskset (util-linux) sets the
 * CPU affinity of each server before it execs (the same pid, so its CPU time is still read from
 * /proc), of each load process, and of every thread of this process while the timed runs last
 * (seeding, picture conversion and the callgrind counts use every core). Without taskset or a
 * second core nothing is pinned, and the report says so.
 */
const ALL_CORES = `0-${os.cpus().length - 1}`;
const pinning = ((): { server: string; load: string } | undefined => {
  if (os.cpus().length < 2) return undefined;
  try {
    execFileSync('taskset', ['--version'], { stdio: 'ignore' });
    return { server: '1', load: '0' };
  } catch {
    return undefined;
  }
})();

/** Moves every thread of this process to `cores` (a taskset CPU list). */
function pinSelf(cores: string): void {
  execFileSync('taskset', ['--all-tasks', '--cpu-list', '--pid', cores, String(process.pid)], { stdio: 'ignore' });
}

async function startProcess(cmd: string, argv: string[], env: NodeJS.ProcessEnv, readyUrl: (port: number) => string): Promise<string> {
  const port = await freePort();
  const args = argv.map((a) => a.replace('{port}', String(port)));
  const child = spawn(pinning ? 'taskset' : cmd, pinning ? ['--cpu-list', pinning.server, cmd, ...args] : args, {
    cwd: root,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  await waitForUrl(readyUrl(port), 30);
  const origin = `http://127.0.0.1:${port}`;
  if (child.pid !== undefined) pidOf.set(origin, child.pid);
  return origin;
}

/** The server process behind each origin, to read its CPU time. */
const pidOf = new Map<string, number>();
const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User + system CPU time of a process so far, µs (Linux /proc); undefined elsewhere. */
function cpuTimeUs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLK_TCK;
  } catch {
    return undefined;
  }
}

interface Case {
  name: string;
  kind: 'service' | 'baseline';
  url: string;
  /** The same request every time (a fixed-URL case). */
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** A different request each time (LoadSpec's feed). */
  feed?: LoadSpec['feed'];
  baseline?: string;
  target?: number;
  /** The p99 latency the case must stay within, ms. */
  p99Target?: number;
  /** A PostgreSQL case: the SQLite case of the same request, for the side-by-side table. */
  sqlite?: string;
}

interface Measured {
  name: string;
  kind: string;
  reqPerSec: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  runs: number[];
  baseline?: string;
  /** The median of the ratios of each timed run to the baseline run right after it. */
  ratio?: number;
  /** Those baseline runs, req/s. */
  baselineRuns?: number[];
  /** Server CPU time per request in the reported run, µs (Linux). */
  cpuUsPerRequest?: number;
  /** The median of baseline CPU per request / case CPU per request over the same pairs. */
  cpuRatio?: number;
  target?: number;
  p99Target?: number;
  sqlite?: string;
}

interface Run {
  result: autocannon.Result;
  /** Server CPU time (user + system) per completed request, µs. */
  cpuUs?: number;
}

async function drive(c: Case, seconds: number): Promise<Run> {
  const pid = pidOf.get(new URL(c.url).origin);
  const before = cpuTimeUs(pid);
  const result = await load(c, seconds);
  const after = cpuTimeUs(pid);
  const done = result.requests.total;
  return { result, cpuUs: before !== undefined && after !== undefined && done > 0 ? (after - before) / done : undefined };
}

/** Where the next run of each values file starts: a code or token is handed out once. */
const fedSoFar = new Map<string, number>();

/** One run of autocannon in a fresh process (scripts/bench/load.ts), pinned to the load core. */
async function load(c: Case, seconds: number): Promise<autocannon.Result> {
  const values = c.feed?.values;
  const file = values && 'file' in values ? values.file : undefined;
  const feed = c.feed && file ? { ...c.feed, values: { file, start: fedSoFar.get(file) ?? 0 } } : c.feed;
  const spec: LoadSpec = { url: c.url, connections, duration: seconds, method: c.method, headers: c.headers, body: c.body, feed };
  const argv = ['--import', 'tsx', 'scripts/bench/load.ts', JSON.stringify(spec)];
  const child = spawn(pinning ? 'taskset' : process.execPath, pinning ? ['--cpu-list', pinning.load, process.execPath, ...argv] : argv, {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  children.splice(children.indexOf(child), 1);
  if (code !== 0) throw new Error(`the load run of "${c.name}" exited with ${code}`);
  const { result, fed } = JSON.parse(out) as LoadOutput;
  if (file) fedSoFar.set(file, (fedSoFar.get(file) ?? 0) + fed);
  return result;
}

/** Writes values (codes, tokens) one per line for the load processes to hand out. */
function valuesFile(dir: string, name: string, values: string[]): string {
  const file = path.join(dir, `${name}.txt`);
  fs.writeFileSync(file, `${values.join('\n')}\n`);
  return file;
}

const medianOf = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * Warm-up, then `repeat` timed runs; the run with the median req/s is reported. A case with a
 * baseline is measured in pairs: each timed run of the case is followed at once by a run of its
 * baseline, and the ratio is the median of the pairs' ratios. Both sides then see the same
 * machine state (on a 2-core machine shared with autocannon, throughput drifts by tens of per
 * cent over a few minutes, which made ratios of runs minutes apart meaningless).
 */
async function measure(c: Case, baseline?: Case): Promise<Measured> {
  await drive(c, warmup);
  if (baseline) await drive(baseline, warmup);
  const runs: Run[] = [];
  const ratios: number[] = [];
  const cpuRatios: number[] = [];
  const baselineRuns: number[] = [];
  for (let r = 0; r < repeat; r++) {
    const run = await drive(c, duration);
    runs.push(run);
    if (baseline) {
      const base = await drive(baseline, duration);
      baselineRuns.push(Math.round(base.result.requests.average));
      ratios.push(run.result.requests.average / base.result.requests.average);
      if (run.cpuUs !== undefined && base.cpuUs !== undefined) cpuRatios.push(base.cpuUs / run.cpuUs);
    }
  }
  const ordered = [...runs].sort((a, b) => a.result.requests.average - b.result.requests.average);
  const { result: median, cpuUs } = ordered[Math.floor(ordered.length / 2)]!;
  const m: Measured = {
    name: c.name,
    kind: c.kind,
    reqPerSec: Math.round(median.requests.average),
    p50: median.latency.p50,
    p99: median.latency.p99,
    non2xx: median.non2xx,
    errors: median.errors,
    runs: runs.map((r) => Math.round(r.result.requests.average)),
    cpuUsPerRequest: cpuUs === undefined ? undefined : Math.round(cpuUs * 10) / 10,
    baseline: c.baseline,
    target: c.target,
    p99Target: c.p99Target,
    sqlite: c.sqlite,
  };
  if (baseline) {
    m.baselineRuns = baselineRuns;
    m.ratio = medianOf(ratios);
    if (cpuRatios.length === ratios.length) m.cpuRatio = medianOf(cpuRatios);
  }
  const cpu = m.cpuUsPerRequest === undefined ? '' : `  cpu ${m.cpuUsPerRequest} µs/req`;
  const vs = m.ratio === undefined ? '' : `  ${m.ratio.toFixed(2)}x ${c.baseline} (paired runs: ${baselineRuns.join(', ')} req/s)`;
  process.stderr.write(`  ${c.name.padEnd(34)} ${String(m.reqPerSec).padStart(7)} req/s  p50 ${m.p50} ms  p99 ${m.p99} ms${cpu}${vs}\n`);
  return m;
}

async function pictureConversion(dir: string) {
  const jpeg = path.join(dir, 'photo-12mp.jpg');
  const png = path.join(dir, 'square-4000.png');
  const noise = (w: number, h: number) => sharp({ create: { width: w, height: h, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 25 } } });
  await noise(4000, 3000).jpeg({ quality: 85 }).toFile(jpeg);
  // A drawing-like PNG (gradients and shapes) that, like real ones, stays under the 8 MB cap.
  const svg =
    '<svg xmlns="http://www.w3.org/2000/svg" width="4000" height="4000"><defs><linearGradient id="g" x2="1" y2="1">' +
    '<stop offset="0" stop-color="#123"/><stop offset="1" stop-color="#9cf"/></linearGradient></defs>' +
    '<rect width="4000" height="4000" fill="url(#g)"/><circle cx="2000" cy="1600" r="900" fill="#fc6"/>' +
    '<rect x="800" y="2700" width="2400" height="900" rx="300" fill="#f6a"/></svg>';
  await sharp(Buffer.from(svg)).png().toFile(png);
  const run = (file: string) =>
    JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', 'scripts/bench/picture-convert.ts', file, '3'], { cwd: root, encoding: 'utf8' })) as {
      medianMs: number;
      minMs: number;
      peakRssGrowthMb: number;
    };
  return {
    jpeg12mp: { bytes: fs.statSync(jpeg).size, ...run(jpeg) },
    png4000: { bytes: fs.statSync(png).size, ...run(png) },
  };
}

function chart(results: Measured[]): string {
  const rowH = 26;
  const left = 250;
  const width = 900;
  const max = Math.max(...results.map((r) => r.reqPerSec));
  const scale = (width - left - 120) / max;
  const rows = results
    .map((r, i) => {
      const y = 40 + i * rowH;
      const w = Math.max(1, r.reqPerSec * scale);
      const color = r.kind === 'baseline' ? '#9aa5b1' : '#2b6cb0';
      const ratio = r.ratio !== undefined ? ` (${r.ratio.toFixed(2)}x)` : '';
      return (
        `<text x="${left - 8}" y="${y + 16}" text-anchor="end">${r.name}</text>` +
        `<rect x="${left}" y="${y + 3}" width="${w.toFixed(1)}" height="${rowH - 8}" fill="${color}"/>` +
        `<text x="${left + w + 6}" y="${y + 16}">${r.reqPerSec.toLocaleString('en-US')}${ratio}</text>`
      );
    })
    .join('');
  const height = 60 + results.length * rowH;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="13">` +
    `<rect width="100%" height="100%" fill="#fff"/>` +
    `<text x="10" y="22" font-size="15" font-weight="bold">Requests per second, ${connections} connections (grey: baselines; ratio to the case's baseline)</text>` +
    `${rows}</svg>\n`
  );
}

async function main() {
  if (!args['skip-build']) execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-'));
  const small = { db: path.join(dir, 'small.sqlite'), pics: path.join(dir, 'pics-small') };
  const big = { db: path.join(dir, 'big.sqlite'), pics: path.join(dir, 'pics-big') };

  process.stderr.write(`seeding ${SMALL_USERS} users\n`);
  const seeded = await seedDatabase(small.db, small.pics, SMALL_USERS, false);
  const seedStart = Date.now();
  process.stderr.write(`seeding ${bigUsers} users\n`);
  await seedDatabase(big.db, big.pics, bigUsers, true);
  const bigSeedSeconds = (Date.now() - seedStart) / 1000;
  // Enough for the exchange case at up to 15k exchanges/s: a code used twice would be a replay (400).
  const codes = issueCodes(small.db, Math.min(600_000, (warmup + duration * repeat) * 15_000 + 1000));
  // whois's tokens come from real exchanges of codes of their own, never from the exchange case's.
  const whoisCodes = codes.splice(0, 20);
  // The same exchange with `openid profile email`: the ID token (a user read, an RS256 signature) is what it adds.
  const openidCodes = issueCodes(small.db, Math.min(200_000, (warmup + duration * repeat) * 4000 + 1000), 'userinfo email openid profile');
  // Live tokens for revocation (one each; after the last, the same tokens again, already revoked).
  const tokens = issueTokens(small.db, Math.min(400_000, (warmup + duration * repeat) * 12_000 + 1000));
  // Live refresh tokens for the refresh grant (one each: a spent one again would be a replay, 400).
  const refreshTokens = issueRefreshTokens(small.db, Math.min(600_000, (warmup + duration * repeat) * 15_000 + 1000));
  const pgServer = process.env.TEST_POSTGRES_URL;
  const pgPool = args['pg-pool'];
  if (pgServer) process.stderr.write('seeding PostgreSQL\n');
  const timed = warmup + duration * repeat;
  const pgBench = pgServer
    ? await seedPostgres(pgServer, {
        codes: Math.min(300_000, timed * 6000 + 1000),
        baselineCodes: Math.min(400_000, timed * 10_000 + 1000),
        tokens: Math.min(400_000, timed * 10_000 + 1000),
        refreshTokens: Math.min(300_000, timed * 6000 + 1000),
      })
    : undefined;

  const serviceEnv = (d: { db: string; pics: string }) => ({ DATABASE_URL: d.db, PICTURES_DIR: d.pics, LOG_LEVEL: 'warn', DEMO_DATA: 'false', NODE_ENV: 'production', SESSION_SECRET: 'bench-session-secret-0123456789abcdef', HOST: '127.0.0.1' });
  const service = await startProcess(process.execPath, ['dist/src/server.js'], serviceEnv(small), (p) => `http://127.0.0.1:${p}/healthz`);
  const serviceBig = await startProcess(process.execPath, ['dist/src/server.js'], serviceEnv(big), (p) => `http://127.0.0.1:${p}/healthz`);
  // The same service with metrics on (METRICS_PORT): its cost on the hot path, paired against the one above.
  const metricsPort = await freePort();
  const serviceMetrics = await startProcess(
    process.execPath,
    ['dist/src/server.js'],
    { ...serviceEnv(small), METRICS_PORT: String(metricsPort) },
    (p) => `http://127.0.0.1:${p}/healthz`,
  );
  const servicePg = pgBench
    ? await startProcess(
        process.execPath,
        ['dist/src/server.js'],
        { ...serviceEnv(small), DATABASE_URL: pgBench.url, DATABASE_POOL_SIZE: pgPool },
        (p) => `http://127.0.0.1:${p}/healthz`,
      )
    : undefined;
  const tsx = ['--import', 'tsx', 'scripts/bench/baseline.ts'];
  const pgRead = pgBench ? await startProcess(process.execPath, [...tsx, 'pg-read', '{port}', pgBench.url, pgPool], {}, (p) => `http://127.0.0.1:${p}/?id=1`) : undefined;
  const pgExchange = pgBench ? await startProcess(process.execPath, [...tsx, 'pg-exchange', '{port}', pgBench.url, pgPool], {}, (p) => `http://127.0.0.1:${p}/`) : undefined;
  const bare = await startProcess(process.execPath, [...tsx, 'bare', '{port}'], {}, (p) => `http://127.0.0.1:${p}/`);
  const sqlite = await startProcess(process.execPath, [...tsx, 'sqlite', '{port}', small.db], {}, (p) => `http://127.0.0.1:${p}/?id=1`);
  const stat = await startProcess(process.execPath, [...tsx, 'static', '{port}', small.pics], {}, (p) => `http://127.0.0.1:${p}/`);

  /** A token for whois, from a real exchange (tokens live 600 s). */
  const freshToken = async () => {
    const res = await fetch(`${service}/api/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: whoisCodes.pop()!, client_id: BENCH_CLIENT.id, client_secret: BENCH_CLIENT.secret }),
    });
    if (!res.ok) throw new Error(`whois's token: the exchange answered ${res.status} ${await res.text()}`);
    return ((await res.json()) as { access_token: string }).access_token;
  };
  const token = await freshToken();
  // Seeded with an hour to live: introspection runs late in a full run, past a fresh token's 600 s.
  const introspected = tokens.pop()!;
  const clientAuth = `client_id=${BENCH_CLIENT.id}&client_secret=${BENCH_CLIENT.secret}`;
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  const pictureFile = `/medium/${seeded.pictureUserId}-${seeded.pictureTs}.webp`;
  const codesFile = valuesFile(dir, 'codes', codes);
  const openidCodesFile = valuesFile(dir, 'openid-codes', openidCodes);
  const tokensFile = valuesFile(dir, 'tokens', tokens);
  const refreshTokensFile = valuesFile(dir, 'refresh-tokens', refreshTokens);
  const pgCodesFile = pgBench ? valuesFile(dir, 'pg-codes', pgBench.codes) : undefined;
  const pgBaselineCodesFile = pgBench ? valuesFile(dir, 'pg-baseline-codes', pgBench.baselineCodes) : undefined;
  const pgTokensFile = pgBench ? valuesFile(dir, 'pg-tokens', pgBench.tokens) : undefined;
  const pgRefreshTokensFile = pgBench ? valuesFile(dir, 'pg-refresh-tokens', pgBench.refreshTokens) : undefined;
  const exchange = (file: string): LoadSpec['feed'] => ({
    path: '/api/oauth/token',
    method: 'POST',
    headers: form,
    body: `grant_type=authorization_code&code={}&${clientAuth}`,
    values: { file, start: 0 },
  });
  const refresh = (file: string): LoadSpec['feed'] => ({
    path: '/api/oauth/token',
    method: 'POST',
    headers: form,
    body: `grant_type=refresh_token&refresh_token={}&${clientAuth}`,
    values: { file, start: 0 },
  });

  const cases: Case[] = [
    { name: 'baseline: bare Koa JSON', kind: 'baseline', url: `${bare}/` },
    { name: 'baseline: Koa + prepared SQLite', kind: 'baseline', url: `${sqlite}/?id=1` },
    // autocannon drives a fixed URL and a per-request feed differently, so the random-id cases get
    // a baseline driven the same way, with ids from the same range.
    { name: 'baseline: Koa + prepared SQLite, random ids', kind: 'baseline', url: sqlite, feed: { path: '/?id={}', values: { random: SMALL_USERS } } },
    { name: 'users/info existing id', kind: 'service', url: `${service}/api/users/info?id=1`, baseline: 'baseline: Koa + prepared SQLite', target: 0.9 },
    { name: 'users/info random id (1k users)', kind: 'service', url: service, feed: { path: '/api/users/info?id={}', values: { random: SMALL_USERS } }, baseline: 'baseline: Koa + prepared SQLite, random ids', target: 0.9 },
    { name: `users/info random id (${bigUsers >= 1e6 ? `${bigUsers / 1e6}M` : `${bigUsers / 1e3}k`} users)`, kind: 'service', url: serviceBig, feed: { path: '/api/users/info?id={}', values: { random: bigUsers } }, baseline: 'users/info random id (1k users)', target: 0.9 },
    { name: 'users/info existing id, metrics on', kind: 'service', url: `${serviceMetrics}/api/users/info?id=1`, baseline: 'users/info existing id', target: 0.9 },
    { name: 'users/info unknown id (404)', kind: 'service', url: `${service}/api/users/info?id=999999999`, baseline: 'baseline: Koa + prepared SQLite' },
    { name: 'whois (valid token)', kind: 'service', url: `${service}/api/oauth/whois`, headers: { authorization: `Bearer ${token}` }, baseline: 'baseline: Koa + prepared SQLite', target: 0.85 },
    // The same request every time, like whois (its baseline).
    { name: 'introspect (valid token)', kind: 'service', url: `${service}/api/oauth/introspect`, method: 'POST', headers: form, body: `token=${introspected}&${clientAuth}`, baseline: 'whois (valid token)', target: 0.8 },
    {
      name: 'revoke (a live token each)',
      kind: 'service',
      url: service,
      feed: { path: '/api/oauth/revoke', method: 'POST', headers: form, body: `token={}&${clientAuth}`, values: { file: tokensFile, start: 0 } },
      baseline: 'whois (valid token)',
      target: 0.8,
    },
    { name: 'token exchange (fresh code each)', kind: 'service', url: service, feed: exchange(codesFile), baseline: 'baseline: bare Koa JSON', target: 0.25 },
    { name: 'token exchange with openid (ID token)', kind: 'service', url: service, feed: exchange(openidCodesFile), baseline: 'token exchange (fresh code each)' },
    // A rotation: the token claimed, a new refresh token and access token written (no ID token: no openid).
    { name: 'refresh grant (a live refresh token each)', kind: 'service', url: service, feed: refresh(refreshTokensFile), baseline: 'baseline: bare Koa JSON' },
    // PostgreSQL: the same requests against baselines on the same database (docs/performance.md#postgresql).
    ...(servicePg && pgBench && pgRead && pgExchange && pgCodesFile && pgBaselineCodesFile && pgTokensFile && pgRefreshTokensFile
      ? ((): Case[] => {
          const read = 'baseline: Koa + pg prepared read';
          const whois = 'whois (valid token), PostgreSQL';
          const writes = 'baseline: Koa + pg, claim and insert in a transaction';
          return [
            { name: read, kind: 'baseline', url: `${pgRead}/?id=1` },
            { name: 'users/info existing id, PostgreSQL', kind: 'service', url: `${servicePg}/api/users/info?id=1`, baseline: read, target: 0.85, sqlite: 'users/info existing id' },
            { name: whois, kind: 'service', url: `${servicePg}/api/oauth/whois`, headers: { authorization: `Bearer ${pgBench.token}` }, baseline: read, target: 0.75, sqlite: 'whois (valid token)' },
            {
              name: 'introspect (valid token), PostgreSQL',
              kind: 'service',
              url: `${servicePg}/api/oauth/introspect`,
              method: 'POST',
              headers: form,
              body: `token=${pgBench.token}&${clientAuth}`,
              baseline: whois,
              sqlite: 'introspect (valid token)',
            },
            {
              name: 'revoke (a live token each), PostgreSQL',
              kind: 'service',
              url: servicePg,
              feed: { path: '/api/oauth/revoke', method: 'POST', headers: form, body: `token={}&${clientAuth}`, values: { file: pgTokensFile, start: 0 } },
              baseline: whois,
              sqlite: 'revoke (a live token each)',
            },
            { name: writes, kind: 'baseline', url: pgExchange, feed: exchange(pgBaselineCodesFile) },
            {
              name: 'token exchange, PostgreSQL (fresh code each)',
              kind: 'service',
              url: servicePg,
              feed: exchange(pgCodesFile),
              baseline: writes,
              target: 0.6,
              p99Target: 20,
              sqlite: 'token exchange (fresh code each)',
            },
            {
              name: 'refresh grant, PostgreSQL (a live refresh token each)',
              kind: 'service',
              url: servicePg,
              feed: refresh(pgRefreshTokensFile),
              baseline: writes,
              sqlite: 'refresh grant (a live refresh token each)',
            },
          ];
        })()
      : []),
    // The picture cases last (each run's load process is fresh since, but they stayed last):
    // when autocannon ran in this process, after it had driven the static-file baseline (large
    // bodies) it drove small-response cases at a higher server CPU per users/info request for the
    // rest of the run (docs/performance.md#the-reads-slowness-in-full-runs).
    { name: 'baseline: koa-static picture', kind: 'baseline', url: `${stat}${pictureFile}` },
    { name: 'picture, timestamped address', kind: 'service', url: `${service}/pfp${pictureFile}`, baseline: 'baseline: koa-static picture', target: 1.0 },
    { name: 'picture, default address', kind: 'service', url: `${service}/pfp/medium/${seeded.defaultUserId}.webp`, baseline: 'baseline: koa-static picture', target: 1.0 },
    // Stored in PostgreSQL, served from the in-process cache after the first request (the
    // pfpTimestamp check is still one PostgreSQL read per request).
    ...(servicePg && pgBench
      ? [
          {
            name: 'picture, timestamped address, PostgreSQL-stored',
            kind: 'service' as const,
            url: `${servicePg}/pfp/medium/1-${pgBench.pictureTs}.webp`,
            baseline: 'baseline: koa-static picture',
            target: 1.0,
            sqlite: 'picture, timestamped address',
          },
        ]
      : []),
  ];

  if (args.only) {
    const chosen = cases.filter((c) => c.name.includes(args.only!));
    const needed = new Set(chosen.map((c) => c.baseline));
    cases.splice(0, cases.length, ...cases.filter((c) => chosen.includes(c) || needed.has(c.name)));
  }
  process.stderr.write(`driving ${cases.length} cases: warm-up ${warmup} s, ${repeat} x ${duration} s, ${connections} connections\n`);
  const results: Measured[] = [];
  if (pinning) pinSelf(pinning.load);
  for (const c of cases) results.push(await measure(c, cases.find((b) => b.name === c.baseline)));
  if (pinning) pinSelf(ALL_CORES);
  process.stderr.write('picture conversion\n');
  const pictures = await pictureConversion(dir);

  let instructions: InstructionCount[] | undefined;
  if (instructionRequests > 0 && !hasCallgrind()) {
    process.stderr.write('instructions per request: skipped (valgrind and callgrind_control not found)\n');
  } else if (instructionRequests > 0) {
    process.stderr.write(`instructions per request under callgrind: batches of ${instructionRequests} requests until two agree\n`);
    const opts = { cwd: root, dir, requests: instructionRequests };
    // Codes and tokens of their own: the timed runs above have used theirs.
    const countedCodes = issueCodes(small.db, 10 * Math.max(100, Math.round(instructionRequests / 5)) + 100);
    const countedTokens = issueTokens(small.db, 10 * instructionRequests + 100);
    const countedRefreshTokens = issueRefreshTokens(small.db, 10 * Math.max(100, Math.round(instructionRequests / 5)) + 100);
    const [basePort, servicePort] = [await freePort(), await freePort()];
    // Both servers at once: a count does not depend on what else runs.
    const counted = await Promise.all([
      countInstructions(
        {
          label: 'baseline',
          argv: [process.execPath, ...tsx, 'sqlite', String(basePort), small.db],
          env: {},
          readyPath: '/?id=1',
          cases: [{ name: 'baseline: Koa + prepared SQLite', path: '/?id=1' }],
        },
        { ...opts, port: basePort },
      ),
      countInstructions(
        {
          label: 'service',
          argv: [process.execPath, 'dist/src/server.js'],
          env: serviceEnv(small),
          readyPath: '/healthz',
          cases: [
            { name: 'users/info existing id', path: '/api/users/info?id=1' },
            { name: 'whois (valid token)', path: '/api/oauth/whois', headers: async () => ({ authorization: `Bearer ${await freshToken()}` }) },
            {
              name: 'introspect (valid token)',
              path: '/api/oauth/introspect',
              request: () => ({ path: '/api/oauth/introspect', method: 'POST', headers: form, body: `token=${introspected}&${clientAuth}` }),
            },
            {
              name: 'revoke (a live token each)',
              path: '/api/oauth/revoke',
              request: () => ({ path: '/api/oauth/revoke', method: 'POST', headers: form, body: `token=${countedTokens.pop()}&${clientAuth}` }),
            },
            {
              name: 'token exchange (fresh code each)',
              path: '/api/oauth/token',
              requests: Math.max(100, Math.round(instructionRequests / 5)),
              request: () => ({
                path: '/api/oauth/token',
                method: 'POST',
                headers: form,
                body: `grant_type=authorization_code&code=${countedCodes.pop()}&${clientAuth}`,
              }),
            },
            {
              name: 'refresh grant (a live refresh token each)',
              path: '/api/oauth/token',
              requests: Math.max(100, Math.round(instructionRequests / 5)),
              request: () => ({
                path: '/api/oauth/token',
                method: 'POST',
                headers: form,
                body: `grant_type=refresh_token&refresh_token=${countedRefreshTokens.pop()}&${clientAuth}`,
              }),
            },
          ],
        },
        { ...opts, port: servicePort },
      ),
    ]);
    instructions = counted.flat();
  }

  const pinned = pinning ? `servers pinned to core ${pinning.server}, autocannon to core ${pinning.load}` : 'not pinned (no taskset or one core)';
  const machine = `${os.cpus().length} x ${os.cpus()[0]?.model.trim()}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}; ${pinned}`;
  const report = {
    date: new Date().toISOString(),
    machine,
    settings: { duration, warmup, repeat, connections, bigUsers, bigSeedSeconds, instructionRequests, pinning: pinning ?? null, pgPool: pgBench ? Number(pgPool) : null },
    results,
    pictures,
    instructions,
  };
  const outDir = path.join(root, 'bench-results');
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
  fs.writeFileSync(path.join(outDir, 'chart.svg'), chart(results));

  const lines = [
    `| case | req/s | p50 ms | p99 ms | non-2xx | server CPU µs/req | vs | ratio | target | CPU ratio |`,
    `|---|---:|---:|---:|---:|---:|---|---:|---|---:|`,
    ...results.map((r) =>
      [
        r.name,
        r.reqPerSec.toLocaleString('en-US'),
        r.p50,
        r.p99,
        r.non2xx,
        r.cpuUsPerRequest ?? '',
        r.baseline ?? '',
        r.ratio !== undefined ? `${r.ratio.toFixed(2)}x` : '',
        [
          r.target !== undefined && r.ratio !== undefined ? `>= ${r.target}x ${r.ratio >= r.target ? 'met' : 'MISSED'}` : '',
          r.p99Target !== undefined ? `p99 <= ${r.p99Target} ms ${r.p99 <= r.p99Target ? 'met' : 'MISSED'}` : '',
        ]
          .filter(Boolean)
          .join(', '),
        r.cpuRatio !== undefined ? `${r.cpuRatio.toFixed(2)}x` : '',
      ].join(' | ').replace(/^/, '| ').replace(/$/, ' |'),
    ),
  ];
  // Each PostgreSQL case beside the SQLite case of the same request, each with its own baseline.
  const ratioOf = (r: Measured | undefined) => (r?.ratio === undefined ? 'not run' : `${r.ratio.toFixed(2)}x ${r.baseline}`);
  const pgCases = results.filter((r) => r.sqlite !== undefined);
  const sideBySide = pgCases.length
    ? [
        `| request | SQLite: ratio to its baseline | PostgreSQL: ratio to its baseline | PostgreSQL req/s, p99 ms |`,
        `|---|---|---|---:|`,
        ...pgCases.map((r) => `| ${r.sqlite} | ${ratioOf(results.find((s) => s.name === r.sqlite))} | ${ratioOf(r)} | ${r.reqPerSec.toLocaleString('en-US')}, ${r.p99} |`),
      ].join('\n') + '\n\n'
    : '';
  const pic = pictures;
  const base = instructions?.find((i) => i.server === 'baseline');
  const instructionLines = instructions
    ? [
        `| instructions per request (callgrind, last of ${instructionRequests.toLocaleString('en-US')}-request batches) | instructions | baseline / case | batches |`,
        `|---|---:|---:|---|`,
        ...instructions.map(
          (i) =>
            `| ${i.case} | ${i.instructionsPerRequest.toLocaleString('en-US')} | ${base && i !== base ? `${(base.instructionsPerRequest / i.instructionsPerRequest).toFixed(2)}x` : ''} | ` +
            `${i.batches.map((b) => Math.round(b / 1000)).join(', ')}k${i.settled ? '' : ' (not settled)'} |`,
        ),
      ].join('\n') + '\n\n'
    : '';
  process.stdout.write(
    `\n${report.date} on ${machine}\n\n${lines.join('\n')}\n\n${sideBySide}${instructionLines}` +
      `seeding ${bigUsers.toLocaleString('en-US')} users: ${bigSeedSeconds.toFixed(1)} s\n` +
      `12 MP JPEG (${(pic.jpeg12mp.bytes / 1e6).toFixed(1)} MB) -> 3 WebP sizes: ${pic.jpeg12mp.medianMs.toFixed(0)} ms median, peak RSS growth ${pic.jpeg12mp.peakRssGrowthMb.toFixed(0)} MB\n` +
      `4000x4000 PNG (${(pic.png4000.bytes / 1e6).toFixed(1)} MB) -> 3 WebP sizes: ${pic.png4000.medianMs.toFixed(0)} ms median, peak RSS growth ${pic.png4000.peakRssGrowthMb.toFixed(0)} MB\n` +
      `results: bench-results/latest.json, chart: bench-results/chart.svg\n`,
  );
  children.forEach((c) => c.kill('SIGTERM'));
  await pgBench?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
