/** Starts Prism (mock or proxy) on a free port as its own process group, and stops it cleanly. */
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..', '..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface Prism {
  url: string;
  stop(): Promise<void>;
}

/** `args` are Prism's: ['mock', 'openapi.yaml'] or ['proxy', 'openapi.yaml', upstream, '--errors']. */
export async function startPrism(args: string[]): Promise<Prism> {
  const port = await freePort();
  // Spawned directly and detached: `npx prism` leaves an orphan holding the port (STACK.md).
  const child = spawn(path.join(root, 'node_modules/.bin/prism'), [...args, '--port', String(port), '--host', '127.0.0.1'], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Prism did not start in 30 s:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Prism is listening')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Prism exited with ${code}:\n${output}`));
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
