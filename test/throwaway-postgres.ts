/**
 * A PostgreSQL cluster of a test's own, which it may stop and start at will (the shared test
 * server must stay up for the other suites): initdb + pg_ctl from Debian's binaries, in a temp
 * dir, on a free port, trust auth, fsync off. Run as the unprivileged `postgres` user when the
 * tests run as root (PostgreSQL refuses to run as root), as in CI.
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../scripts/free-port.js';

/** The newest installed PostgreSQL's bin directory, or undefined when none is installed. */
export function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return undefined;
  const versions = fs
    .readdirSync(root)
    .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(a) - Number(b));
  const newest = versions.at(-1);
  return newest === undefined ? undefined : path.join(root, newest, 'bin');
}

export class ThrowawayPostgres {
  private constructor(
    private readonly bin: string,
    readonly dir: string,
    readonly port: number,
  ) {}

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  static async create(bin: string): Promise<ThrowawayPostgres> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'idp-pg-'));
    fs.chmodSync(dir, 0o755);
    const cluster = new ThrowawayPostgres(bin, dir, await freePort());
    if (process.getuid?.() === 0) {
      try {
        execFileSync('id', ['postgres'], { stdio: 'ignore' });
      } catch {
        execFileSync('useradd', ['--system', '--no-create-home', 'postgres']);
      }
      execFileSync('chown', ['postgres', dir]);
    }
    await cluster.run('initdb', ['-D', `${dir}/data`, '-A', 'trust', '-U', 'postgres']);
    await cluster.start();
    return cluster;
  }

  /** Asynchronous, so an in-process server under test keeps answering while PostgreSQL stops. */
  private async run(tool: string, args: string[]): Promise<void> {
    const command = [path.join(this.bin, tool), ...args];
    if (process.getuid?.() === 0) {
      const quoted = command.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
      await promisify(execFile)('su', ['postgres', '-s', '/bin/sh', '-c', quoted]);
    } else {
      await promisify(execFile)(command[0]!, command.slice(1));
    }
  }

  async start(): Promise<void> {
    const options = `-c listen_addresses=127.0.0.1 -p ${this.port} -k ${this.dir} -c fsync=off -c max_connections=50`;
    await this.run('pg_ctl', ['-D', `${this.dir}/data`, '-l', `${this.dir}/server.log`, '-w', '-t', '60', '-o', options, 'start']);
  }

  /** A fast shutdown: open connections are terminated, as when a database server goes away. */
  async stop(): Promise<void> {
    await this.run('pg_ctl', ['-D', `${this.dir}/data`, '-m', 'fast', '-w', 'stop']);
  }

  async destroy(): Promise<void> {
    try {
      await this.run('pg_ctl', ['-D', `${this.dir}/data`, '-m', 'immediate', 'stop']);
    } catch {
      // Already stopped.
    }
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
