/**
 * The real service as a child process (`node --import tsx src/server.ts`, or the compiled
 * `dist/src/server.js`), for the tests and scripts that need the entry point itself: start-up
 * output, signals, kill -9. Everything else uses the in-process startServer() in helpers.ts.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../scripts/free-port.js';

const root = path.resolve(import.meta.dirname, '..');

interface SpawnServiceOptions {
  /**
   * The service's environment, over a minimal one (PATH, PORT, HOST=127.0.0.1): nothing else of
   * the caller's environment leaks in unless passed here.
   */
  env?: NodeJS.ProcessEnv;
  /** Defaults to a free port; pass one when the environment must name it (PUBLIC_URL). */
  port?: number;
  /** The entry point, relative to `cwd`: a .ts file runs under tsx, a .js file under plain node. */
  script?: 'src/server.ts' | 'dist/src/server.js';
  /** How long the service may take to answer /healthz with 200. */
  readySeconds?: number;
  /** Its working folder, where the default `./data/` is (default: the repository). */
  cwd?: string;
}

export interface SpawnedService {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** Everything the process has written so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the first stdout line that contains `text` (waits up to `seconds`). */
  line(text: string, seconds?: number): Promise<string>;
  /** Sends `signal` (SIGKILL by default) and resolves once the process is gone. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** SIGTERM, as an orchestrator stops the service; resolves with the exit code (null when a signal ended it). */
  stop(): Promise<number | null>;
}

/** The service ended before it answered: its exit code and output, to assert on or to show. */
export class ServiceExited extends Error {
  constructor(
    readonly code: number | null,
    readonly stdout: string,
    readonly stderr: string,
  ) {
    super(`the service exited with ${code} before it answered:\n${stderr || stdout}`);
  }
}

/** Processes still running when this process exits are killed, so a failed test leaves none behind. */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A child process whose stdout and stderr are collected as they come. */
interface CollectedProcess {
  child: ChildProcess;
  /** Everything the process has written so far. */
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code (null when a signal ended it) once the process is gone. */
  exited: Promise<number | null>;
  /** The same, once stdout and stderr are read to their end too ('exit' can come before the last output). */
  ended: Promise<number | null>;
  /** Whether the process has exited (or a signal ended it). */
  gone: () => boolean;
}

/** Spawns `command` with stdin ignored, collecting stdout and stderr; killed with this process if still running. */
export function spawnCollected(command: string, args: string[], options: Omit<SpawnOptions, 'stdio'>): CollectedProcess {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  const closed = (stream: NodeJS.ReadableStream) => new Promise((resolve) => stream.once('close', resolve));
  const ended = Promise.all([exited, closed(child.stdout), closed(child.stderr)]).then(([code]) => code);
  return { child, stdout: () => stdout, stderr: () => stderr, exited, ended, gone: () => child.exitCode !== null || child.signalCode !== null };
}

/** Starts the service and resolves once GET /healthz answers 200; rejects with ServiceExited if it ends first. */
export async function spawnService(options: SpawnServiceOptions = {}): Promise<SpawnedService> {
  const port = options.port ?? (await freePort());
  const script = options.script ?? 'src/server.ts';
  const args = script.endsWith('.ts') ? ['--import', 'tsx', script] : [script];
  const { child, stdout, stderr, exited, ended, gone } = spawnCollected(process.execPath, args, {
    cwd: options.cwd ?? root,
    env: { PATH: process.env.PATH, PORT: String(port), HOST: '127.0.0.1', ...options.env },
  });

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.readySeconds ?? 30) * 1000;
  for (;;) {
    if (gone()) throw new ServiceExited(await ended, stdout(), stderr());
    const ready = await fetch(`${url}/healthz`).then(
      async (res) => {
        await res.arrayBuffer();
        return res.status === 200;
      },
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the service did not answer ${url}/healthz with 200 in ${options.readySeconds ?? 30} s:\n${stderr() || stdout()}`);
    }
    await sleep(50);
  }

  const kill = async (signal: NodeJS.Signals = 'SIGKILL') => {
    if (!gone()) child.kill(signal);
    await exited;
  };
  return {
    url,
    port,
    stdout,
    stderr,
    async line(text, seconds = 10) {
      const end = Date.now() + seconds * 1000;
      // Complete lines only: the last piece may still be arriving.
      const find = () => stdout().split('\n').slice(0, -1).find((l) => l.includes(text));
      while (find() === undefined && !gone() && Date.now() < end) await sleep(20);
      if (gone()) await ended;
      const found = find();
      if (found === undefined) throw new Error(`no line with ${JSON.stringify(text)} in the service's output:\n${stdout()}`);
      return found;
    },
    kill,
    async stop() {
      await kill('SIGTERM');
      return exited;
    },
  };
}
