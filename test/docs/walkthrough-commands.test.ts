/**
 * docs/walkthrough.md's shell sections run as written, after README's five-minute walk: each block
 * goes to bash as one script (so `CODE` and `TOKEN` carry from line to line), with the doc's
 * addresses read for this test's ports (http://localhost:3000, the metrics port 9464) and its files
 * put in a temporary folder; what each command prints is held against the `# ` lines the doc puts
 * under it. The service starts as the doc says, in a terminal (script(1)), as a reader's would.
 * Real processes: in the `slow` project (vitest.config.ts).
 */
import { execFile, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/free-port.js';
import { tempDir } from '../helpers.js';
import { spawnService } from '../spawn-service.js';

const root = path.resolve(import.meta.dirname, '../..');
const dir = tempDir();
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

/** The text of `file` from the heading `heading` to the next heading of its level or higher (outside code blocks). */
function section(file: string, heading: string): string {
  const lines = read(file).split('\n');
  const start = lines.indexOf(heading);
  expect(start, `${file} has "${heading}"`).toBeGreaterThanOrEqual(0);
  const level = /^#+/.exec(heading)![0].length;
  let fenced = false;
  let end = start + 1;
  for (; end < lines.length; end++) {
    if (lines[end]!.startsWith('```')) fenced = !fenced;
    const m = /^(#+) /.exec(lines[end]!);
    if (!fenced && m && m[1]!.length <= level) break;
  }
  return lines.slice(start, end).join('\n');
}

/** The ```sh blocks of a piece of markdown. */
const shBlocks = (markdown: string): string[] => [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);

interface Command {
  /** The command, its continuation lines joined. */
  command: string;
  /** The `# ` lines right under it: what the doc says it prints. */
  said: string[];
}

/** A block's commands, each with the comment lines under it. */
function commandsOf(block: string): Command[] {
  const commands: Command[] = [];
  const lines = block.split('\n');
  // A comment after a blank line (or before any command) heads what follows: it is no output.
  let under: Command | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') {
      under = undefined;
      continue;
    }
    if (line.startsWith('#')) {
      under?.said.push(line.replace(/^# ?/, ''));
      continue;
    }
    let command = line;
    while (command.endsWith('\\')) command = `${command.slice(0, -1)}${lines[++i]!.trimStart()}`;
    under = { command: command.replace(/\s+#\s.*$/, ''), said: [] };
    commands.push(under);
  }
  return commands;
}

interface Place {
  port: number;
  metricsPort?: number;
  env: NodeJS.ProcessEnv;
}

/** The doc's addresses and files, read for this test. */
const here = (text: string, place: Place) =>
  text
    .replaceAll('localhost:3000', `localhost:${place.port}`)
    .replaceAll('9464', String(place.metricsPort ?? 9464))
    .replaceAll('server.log', path.join(dir, 'server.log'))
    .replaceAll('./data/backup.sqlite', path.join(dir, 'backup.sqlite'));

/** Runs the commands in one bash, in the repository (as the reader's second terminal); each one's output. */
async function run(commands: Command[], place: Place, vars: Record<string, string> = {}): Promise<string[]> {
  const script = commands.map((c, i) => `${here(c.command, place)}\nprintf '\\n@@@${i}@@@\\n'`).join('\n');
  const { stdout } = await promisify(execFile)('bash', ['-c', script], { cwd: root, env: { ...place.env, ...vars }, encoding: 'utf8', timeout: 120_000 });
  return commands.map((_c, i) => {
    const start = i === 0 ? 0 : stdout.indexOf(`@@@${i - 1}@@@\n`) + `@@@${i - 1}@@@\n`.length;
    return stdout.slice(start, stdout.indexOf(`\n@@@${i}@@@`)).trim();
  });
}

/** The service's environment for a test: its own port, database and pictures, demo data. */
function placeFor(port: number, name: string): Place {
  return {
    port,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: `http://localhost:${port}`,
      DATABASE_URL: path.join(dir, `${name}.sqlite`),
      PICTURES_DIR: path.join(dir, `${name}-pictures`),
    },
  };
}

/** README's five-minute walk: its code and exchange, then the exchange again (the replay it describes); the walk's token. */
async function readmeWalkWithReplay(place: Place): Promise<string> {
  const [issue, exchange] = commandsOf(shBlocks(section('README.md', '## A five-minute walk'))[0]!);
  expect(issue!.command).toMatch(/^CODE=\$\(npm run --silent admin -- code issue /);
  expect(exchange!.command).toMatch(/^curl -s http:\/\/localhost:3000\/api\/oauth\/token /);
  const [, first, replay] = await run([issue!, exchange!, exchange!], place);
  const replayed = JSON.parse(replay!) as { message: string };
  expect(replayed.message).toBe('Authorization code has already been used; tokens issued from it are revoked');
  return (JSON.parse(first!) as { access_token: string }).access_token;
}

describe('docs/walkthrough.md "With curl", after the README walk and its replay', () => {
  it('introspects a live token: what the doc says it answers', async () => {
    const place = placeFor(await freePort(), 'curl');
    const service = await spawnService({ port: place.port, env: place.env });
    try {
      const walkToken = await readmeWalkWithReplay(place);
      const commands = commandsOf(shBlocks(section('docs/walkthrough.md', '## With curl'))[0]!);
      const outputs = await run(commands, place, { TOKEN: walkToken });
      const first = commands.findIndex((c) => c.command.includes('/api/oauth/introspect'));
      const said = JSON.parse(commands[first]!.said.join('')) as Record<string, unknown>;
      expect(said).toMatchObject({ active: true });
      expect(JSON.parse(outputs[first]!)).toEqual({ ...said, exp: expect.any(Number), iat: expect.any(Number) });
      // After the revocation the doc shows, the same question answers inactive.
      const last = commands.findLastIndex((c) => c.command.includes('/api/oauth/introspect'));
      expect([commands[last]!.said, outputs[last]]).toEqual([['{"active":false}'], '{"active":false}']);
    } finally {
      await service.stop();
    }
  }, 180_000);
});

/** The processes whose parent is `pid`, and theirs. */
function descendants(pid: number): number[] {
  const pairs = spawnSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' })
    .stdout.trim()
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

const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;

describe.skipIf(!hasScript)('docs/walkthrough.md "Metrics, audit and a backup"', () => {
  it('started as the doc says, in a terminal: the metrics and the audit log show the replay, and the backup is written', async () => {
    const place = { ...placeFor(await freePort(), 'metrics'), metricsPort: await freePort() };
    const text = section('docs/walkthrough.md', '### Metrics, audit and a backup');
    // The start command: the block line that runs npm start, else the one the prose names.
    const start = shBlocks(text)
      .flatMap((b) => commandsOf(b))
      .map((c) => c.command)
      .find((c) => c.includes('npm start')) ?? /`([^`]*npm start)`/.exec(text)![1]!;
    const terminal = spawn('script', ['-qfec', here(start, place), '/dev/null'], { cwd: root, env: place.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let screen = '';
    terminal.stdout.on('data', (chunk: Buffer) => (screen += chunk.toString()));
    const exited = new Promise((resolve) => terminal.once('exit', resolve));
    try {
      await expect.poll(() => fetch(`http://127.0.0.1:${place.port}/healthz`).then((r) => r.status, () => 0), { timeout: 60_000 }).toBe(200);
      const commands = shBlocks(text)
        .flatMap((b) => commandsOf(b))
        .filter((c) => !c.command.includes('npm start'));
      const outputs = await run(commands, place);
      const output = (what: string) => outputs[commands.findIndex((c) => c.command.includes(what))] ?? '';
      const saidFor = (what: string) => commands.find((c) => c.command.includes(what))?.said ?? [];
      expect(output('/metrics').split('\n')).toEqual(saidFor('/metrics'));
      expect(saidFor('/metrics')).toEqual(['idp_token_exchanges_total{outcome="issued"} 1', 'idp_token_exchanges_total{outcome="invalid_grant"} 1', 'idp_code_replays_total 1']);
      // The audit line the doc names, where the doc says to find it (the file the start command
      // tees into, or the terminal).
      const log = /\btee (\S+)/.test(start) ? fs.readFileSync(path.join(dir, 'server.log'), 'utf8') : screen;
      const replayLines = log.split(/\r?\n/).filter((l) => l.includes('"event":"code_replay_detected"'));
      expect(replayLines.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
        expect.objectContaining({ level: 30, audit: true, userId: 1, clientId: 'demo_client', revokedTokens: 1, event: 'code_replay_detected', msg: 'code_replay_detected' }),
      ]);
      const grep = "grep '\"event\":\"code_replay_detected\"'";
      expect(output(grep)).toBe(replayLines[0]);
      // The doc's line, its "..." standing for the values of this run.
      const said = saidFor(grep).join('');
      expect(output(grep)).toMatch(new RegExp(`^${said.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replaceAll('\\.\\.\\.', '[^,"]+')}$`));
      const backup = JSON.parse(output('admin -- backup')) as { file: string; bytes: number };
      expect([backup.file, fs.statSync(backup.file).size]).toEqual([path.join(dir, 'backup.sqlite'), backup.bytes]);
    } finally {
      for (const pid of descendants(terminal.pid!).reverse()) {
        try {
          process.kill(pid, 'SIGTERM');
        } catch {
          // gone already
        }
      }
      await exited;
    }
  }, 180_000);
});
