/** Starts Prism (mock or proxy) on a free port as its own process group, and stops it cleanly. */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../../scripts/free-port.js';

const root = path.resolve(import.meta.dirname, '..', '..');

export interface Prism {
  url: string;
  stop(): Promise<void>;
}

/** `args` are Prism's: ['mock', 'openapi.yaml'] or ['proxy', 'openapi.yaml', upstream, '--errors']. */
export async function startPrism(args: string[]): Promise<Prism> {
  const port = await freePort();
  return startDetached(path.join(root, 'node_modules/.bin/prism'), [...args, '--port', String(port), '--host', '127.0.0.1'], port, 'Prism is listening');
}

/** What `npm run mock` runs (scripts/mock.ts: Prism behind a picture-substituting front). */
export async function startMock(args: string[] = []): Promise<Prism> {
  const port = await freePort();
  return startDetached(process.execPath, ['--import', 'tsx', 'scripts/mock.ts', '--port', String(port), ...args], port, 'Mock is listening');
}

async function startDetached(command: string, args: string[], port: number, ready: string): Promise<Prism> {
  // Spawned directly and detached: `npx prism` leaves an orphan holding the port (docs/decisions.md#tooling-facts-the-code-relies-on).
  // The process group is killed as a whole, so the mock script's Prism child goes with it.
  const child = spawn(command, args, {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${ready}: not seen in 30 s:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(ready)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited with ${code}:\n${output}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        return;
      }
      await exited;
    },
  };
}
