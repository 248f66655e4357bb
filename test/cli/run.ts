/** The operator CLI in-process (runCli, src/cli/admin.ts), as the CLI suites run it: an exit code and what it wrote. */
import { expect } from 'vitest';
import { runCli } from '../../src/cli/admin.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `cli`, `ok` and `fails` over the environment `env()` returns (read on each run: suites set it in
 * a beforeAll), and `cliWith` for a run under another environment. `now`: the CLI's clock (the
 * real one when absent).
 */
export function cliRunner(env: () => NodeJS.ProcessEnv, now?: () => number) {
  async function cliWith(runEnv: NodeJS.ProcessEnv, ...argv: string[]): Promise<Run> {
    let stdout = '';
    let stderr = '';
    const code = await runCli(argv, { env: runEnv, ...(now ? { now } : {}), stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
    return { code, stdout, stderr };
  }

  const cli = (...argv: string[]): Promise<Run> => cliWith(env(), ...argv);

  /** A successful command: exit 0, nothing on stderr, exactly one JSON line on stdout. */
  async function ok<T = Record<string, unknown>>(...argv: string[]): Promise<T> {
    const run = await cli(...argv);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(run.stdout.endsWith('\n')).toBe(true);
    expect(run.stdout.slice(0, -1)).not.toContain('\n');
    return JSON.parse(run.stdout) as T;
  }

  /** A failed command: the exit code, `error: <message>` on stderr, nothing on stdout. */
  async function fails(code: number, message: string, ...argv: string[]): Promise<void> {
    expect(await cli(...argv)).toEqual({ code, stdout: '', stderr: `error: ${message}\n` });
  }

  return { cli, cliWith, ok, fails };
}
