/**
 * Instructions per request, counted by valgrind's callgrind: the same count for the same build
 * and requests whatever else the machine is doing, unlike req/s and CPU time, which on a 2-core
 * machine shared with the load generator drift by tens of per cent between runs. It counts user-
 * space instructions of every thread of the server (JIT code, V8, libuv, SQLite), not kernel time
 * (the socket reads and writes, the same per request for every server here) nor cache misses.
 *
 * A server runs under callgrind; each case is driven in batches of `requests` requests with a
 * callgrind dump after each, so a dump holds exactly one batch. The JIT keeps compiling for a
 * while (early batches cost several times the steady state), so batches repeat until two in a
 * row agree within 2 %; the last one is reported, with whether it settled.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { until, waitForUrl } from './wait.js';

interface InstructionCase {
  name: string;
  /** Path (with query) on the server. */
  path: string;
  /** Asked right before the case runs (a whois token must not expire while others are counted). */
  headers?: () => Promise<Record<string, string>>;
  /** A request of its own for each request sent (a fresh code or token each); `path` is then the first. */
  request?: () => { path: string; method: string; headers: Record<string, string>; body: string };
  /** Requests per batch instead of the run's (the writes cost several times a read under callgrind). */
  requests?: number;
}

interface InstructionServer {
  label: string;
  argv: string[];
  env: NodeJS.ProcessEnv;
  /** Answers once the server is up. */
  readyPath: string;
  cases: InstructionCase[];
}

export interface InstructionCount {
  server: string;
  case: string;
  /** Requests per batch. */
  requests: number;
  instructionsPerRequest: number;
  /** Every batch's instructions per request, the first (warm-up) included. */
  batches: number[];
  /** The last two batches agreed within 2 %. */
  settled: boolean;
}

const MAX_BATCHES = 10;

export function hasCallgrind(): boolean {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
    execFileSync('callgrind_control', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The instruction total of one callgrind dump file. */
function dumpTotal(file: string): number {
  const match = /^totals: (\d+)/m.exec(fs.readFileSync(file, 'utf8'));
  if (!match) throw new Error(`no instruction total in ${file}`);
  return Number(match[1]);
}

/** Runs one server under callgrind and counts each of its cases, in order. */
export async function countInstructions(
  server: InstructionServer,
  opts: { cwd: string; dir: string; port: number; requests: number },
): Promise<InstructionCount[]> {
  const out = path.join(opts.dir, `callgrind.${server.label}`);
  // callgrind_control reaches the server through vgdb's FIFOs, named with this prefix and the
  // user and host from the environment (HOST too): both sides get the same prefix and env.
  const vgdbPrefix = `--vgdb-prefix=${path.join(opts.dir, `vgdb-${server.label}`)}`;
  const env = { ...process.env, ...server.env, PORT: String(opts.port) };
  const log = `${out}.log`;
  const child = spawn(
    'valgrind',
    ['--tool=callgrind', vgdbPrefix, `--log-file=${log}`, `--callgrind-out-file=${out}.%p`, '--dump-instr=no', '--collect-jumps=no', ...server.argv],
    { cwd: opts.cwd, env, stdio: ['ignore', 'ignore', fs.openSync(log.replace(/\.log$/, '.stderr'), 'w')] },
  );
  let exited = '';
  child.on('exit', (code, signal) => {
    exited = `${server.label} under callgrind exited (${signal ?? code}); see ${log}`;
  });
  const alive = () => {
    if (exited) throw new Error(exited);
  };
  const origin = `http://127.0.0.1:${opts.port}`;
  const dumpFiles = () => fs.readdirSync(opts.dir).filter((f) => f.startsWith(`callgrind.${server.label}.${child.pid}.`));
  const dump = async (): Promise<string> => {
    const before = new Set(dumpFiles());
    execFileSync('callgrind_control', [vgdbPrefix, '--dump', String(child.pid)], { env, stdio: 'ignore' });
    let file = '';
    await until(
      async () => {
        alive();
        file = dumpFiles().find((f) => !before.has(f)) ?? '';
        // A dump is complete once its totals line is written (the last line).
        return file !== '' && /^totals: \d+/m.test(fs.readFileSync(path.join(opts.dir, file), 'utf8'));
      },
      120,
      `callgrind dump of ${server.label}`,
    );
    return path.join(opts.dir, file);
  };
  const drive = async (c: InstructionCase, headers: Record<string, string> | undefined, amount: number) => {
    const make = c.request;
    const result = await autocannon({
      url: `${origin}${c.path}`,
      headers,
      connections: 10,
      amount,
      timeout: 120,
      requests: make && [{ setupRequest: (req) => ({ ...req, ...make() }) as typeof req }],
    });
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${server.label} ${c.name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  };
  try {
    // Under callgrind the service starts in about a minute (every module is JIT-less at first).
    await waitForUrl(`${origin}${server.readyPath}`, 600);
    const counts: InstructionCount[] = [];
    await dump(); // start-up
    for (const c of server.cases) {
      const headers = await c.headers?.();
      const batches: number[] = [];
      let settled = false;
      const requests = c.requests ?? opts.requests;
      while (!settled && batches.length < MAX_BATCHES) {
        await drive(c, headers, requests);
        batches.push(Math.round(dumpTotal(await dump()) / requests));
        const [previous, last] = batches.slice(-2);
        settled = batches.length >= 3 && Math.abs(last! - previous!) / last! < 0.02;
      }
      counts.push({ server: server.label, case: c.name, requests, instructionsPerRequest: batches.at(-1)!, batches, settled });
    }
    return counts;
  } finally {
    child.kill('SIGKILL');
  }
}
