/**
 * Operator CLI: `npm run --silent admin -- <command>`. Each command prints one JSON object on
 * stdout; bad input exits non-zero with `error: <message>` on stderr. Same config as the server.
 * The commands live in one module per group beside this one and call the same domain functions
 * as the HTTP handlers; this entry builds the program and turns failures into exit codes.
 */
import { pathToFileURL } from 'node:url';
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config.js';
import { DomainError, type ErrorKind } from '../domain/errors.js';
import { appCommands } from './apps.js';
import { codeCommands } from './codes.js';
import { createCliContext, type CliIo } from './context.js';
import { databaseCommands } from './database.js';
import { describeEnvironment } from './environment.js';
import { gameCommands } from './games.js';
import { keyCommands } from './keys.js';
import { moderationCommands } from './moderation.js';
import { pictureCommands } from './pictures.js';
import { upstreamCommands } from './upstreams.js';
import { userCommands } from './users.js';

/**
 * The one map from a refused operation to an exit code, so scripts can tell "not there" and "taken"
 * from other refusals. 2 stays commander's usage error.
 */
export const EXIT_CODE: Record<ErrorKind, number> = {
  invalid_input: 1,
  invalid_grant: 1,
  unauthenticated: 1,
  forbidden: 1,
  too_large: 1,
  rate_limited: 1,
  not_found: 3,
  conflict: 4,
  unavailable: 5,
  bad_gateway: 5,
};

/** Runs one CLI invocation; resolves to the exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const cli = createCliContext(io);
  const program = new Command('admin')
    .description('Operator commands for the identity service (same environment as the server)')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError(false);
  // In this order in `--help`.
  userCommands(program, cli);
  moderationCommands(program, cli);
  appCommands(program, cli);
  codeCommands(program, cli);
  gameCommands(program, cli);
  pictureCommands(program, cli);
  keyCommands(program, cli);
  upstreamCommands(program, cli);
  databaseCommands(program, cli);
  describeEnvironment(program);

  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander has printed its own message (help and version exit 0).
      return err.exitCode === 0 ? 0 : 2;
    }
    if (err instanceof DomainError) {
      io.stderr(`error: ${err.message}\n`);
      return EXIT_CODE[err.kind];
    }
    if (err instanceof ConfigError) {
      io.stderr(`error: ${err.message}\n`);
      return 1;
    }
    io.stderr(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    await cli.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const code = await runCli(process.argv.slice(2), {
    env: process.env,
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
  });
  process.exitCode = code;
}
