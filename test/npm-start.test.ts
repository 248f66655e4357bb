/**
 * The long-running npm scripts as a person or a process manager runs them: `npm start` and
 * `npm run example:static` stop, port freed, when the npm process itself gets SIGTERM (the script
 * execs node, so the signal npm forwards reaches the server and no server is left behind); and the
 * start is readable in a terminal (LOG_FORMAT) while JSON logs stay the default elsewhere.
 * Real processes: in the `slow` project (vitest.config.ts).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../scripts/free-port.js';
import { tempDir } from './helpers.js';
import { spawnService } from './spawn-service.js';

const root = path.resolve(import.meta.dirname, '..');
const dir = tempDir();
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether something accepts connections on 127.0.0.1:port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function waitFor(what: string, check: () => Promise<boolean>, seconds = 60): Promise<void> {
  const end = Date.now() + seconds * 1000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** The processes whose parent is `pid`, and theirs: what npm started. */
function descendants(pid: number): number[] {
  const ps = spawnSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' }).stdout;
  const pairs = ps
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/).map(Number) as [number, number]);
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const [child, ppid] of pairs) {
      if (ppid === parent) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** `npm run <script>` with `env`; its output is collected. */
function npmRun(script: string, env: NodeJS.ProcessEnv): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn('npm', ['run', script], { cwd: root, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** Starts `npm run <script>`, waits for its port, sends SIGTERM to npm only, and checks that nothing is left. */
async function stopsOnSigterm(script: string, port: number, env: NodeJS.ProcessEnv, ready: string): Promise<{ output: string; code: number | null }> {
  const run = npmRun(script, { PORT: String(port), ...env });
  try {
    await waitFor(`npm run ${script} to listen on ${port}`, () => listening(port));
    await waitFor(`npm run ${script} to print ${ready}`, async () => run.output().includes(ready));
    const started = descendants(run.child.pid!);
    expect(started.length).toBeGreaterThan(0);
    run.child.kill('SIGTERM');
    const code = await run.exited;
    await waitFor(`port ${port} to be free`, async () => !(await listening(port)), 15);
    await waitFor('every process npm started to end', async () => started.every((pid) => !alive(pid)), 15);
    return { output: run.output(), code };
  } finally {
    if (run.child.exitCode === null) run.child.kill('SIGKILL');
  }
}

describe('stopping an npm script by the npm process id', () => {
  it('npm start: SIGTERM to npm stops the server gracefully and frees the port', async () => {
    const port = await freePort();
    const { output, code } = await stopsOnSigterm('start', port, { DATABASE_URL: path.join(dir, 'start.sqlite'), PICTURES_DIR: path.join(dir, 'pics'), HOST: '127.0.0.1' }, '"msg":"listening"');
    // The server's own graceful shutdown ran (not a kill): it logged it and exited 0, and so did npm.
    expect(output).toContain('"msg":"shutting down"');
    expect(code).toBe(0);
  }, 120_000);

  it('npm run example:static: SIGTERM to npm stops the static game server and frees the port', async () => {
    const port = await freePort();
    const { output } = await stopsOnSigterm('example:static', port, { SERVICE_URL: `http://127.0.0.1:${await freePort()}` }, 'Static example game on');
    expect(output).toContain(`Static example game on http://localhost:${port}/`);
  }, 120_000);
});

describe('the start-up output', () => {
  it('LOG_FORMAT=text: every log line is a line a person reads, in the banner; JSON stays the default off a terminal', async () => {
    const text = await spawnService({ env: { DATABASE_URL: path.join(dir, 'text.sqlite'), PICTURES_DIR: path.join(dir, 'pics-text'), LOG_FORMAT: 'text' } });
    try {
      await text.line('listening');
      const lines = text.stdout().split('\n').filter((l) => l !== '');
      expect(lines.filter((l) => l.startsWith('{'))).toEqual([]);
      expect(lines).toContainEqual(expect.stringMatching(/^\d\d:\d\d:\d\d WARN {2}SESSION_SECRET is not set: using the key kept in /));
      expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^\\d\\d:\\d\\d:\\d\\d INFO {2}listening {2}port=${text.port} host=127.0.0.1 database=`)));
      expect(lines).toContainEqual(expect.stringMatching(/^\d\d:\d\d:\d\d WARN {2}no SMTP_URL: mail is written to /));
      expect(text.stdout()).toContain('client_id demo_client / client_secret demo-secret');
    } finally {
      await text.stop();
    }
    // Off a terminal, without LOG_FORMAT: JSON lines, as production collectors read them.
    const json = await spawnService({ env: { DATABASE_URL: path.join(dir, 'json.sqlite'), PICTURES_DIR: path.join(dir, 'pics-json') } });
    try {
      expect(JSON.parse(await json.line('"msg":"listening"'))).toMatchObject({ level: 30, msg: 'listening', port: json.port });
    } finally {
      await json.stop();
    }
  }, 120_000);

  it('in a terminal (a pseudo-terminal from script(1)), `npm start` prints readable lines without LOG_FORMAT', async () => {
    const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
    if (!hasScript) return;
    const port = await freePort();
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: path.join(dir, 'tty.sqlite'), PICTURES_DIR: path.join(dir, 'pics-tty') };
    const child = spawn('script', ['-qfec', 'npm start', '/dev/null'], { cwd: root, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      await waitFor('the listening line', async () => /INFO {2}listening/.test(output));
      expect(output).toMatch(/\d\d:\d\d:\d\d WARN {2}SESSION_SECRET is not set/);
      expect(output).not.toContain('"msg":"listening"');
    } finally {
      for (const pid of descendants(child.pid!).reverse()) {
        try {
          process.kill(pid, 'SIGTERM');
        } catch {
          // gone already
        }
      }
      await exited;
    }
  }, 120_000);
});

describe('install scripts (npm 11 allowScripts)', () => {
  it("every dependency with an install script is reviewed in package.json's allowScripts; better-sqlite3's build is allowed", () => {
    const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { hasInstallScript?: boolean }> };
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { allowScripts: Record<string, boolean> };
    const withScripts = Object.entries(lock.packages)
      .filter(([, p]) => p.hasInstallScript)
      .map(([where]) => where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(withScripts.length).toBeGreaterThan(0);
    expect(withScripts.filter((name) => !(name in pkg.allowScripts))).toEqual([]);
    expect(pkg.allowScripts['better-sqlite3']).toBe(true);
    // npm itself agrees: nothing is left pending review (what the end of `npm install` would warn about).
    const pending = spawnSync('npm', ['approve-scripts', '--allow-scripts-pending'], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    expect([pending.status, pending.stdout.trim()]).toEqual([0, 'No packages with unreviewed install scripts.']);
  }, 60_000);
});
