/**
 * Which of the server's environment variables (docs/configuration.md) each command reads, shown by
 * `admin --help` and by each command's `--help`: the commands run with the server's environment,
 * and a command run without the variable it needs works on another database, with another key or
 * another picture folder than the server's.
 */
import type { Command } from 'commander';

/** What each variable is to the commands that read it. */
const VARIABLES = {
  DATABASE_URL: "the server's database (and DATABASE_POOL_SIZE on PostgreSQL)",
  SESSION_SECRET: "the server's key, which seals and opens the secrets it keeps",
  PICTURES_DIR: 'the picture folder (on SQLite; on PostgreSQL the pictures are in the database)',
  PUBLIC_URL: "the server's address, in the callbacks and mails it makes",
  SMTP_URL: 'the mail server of the security notices it mails (unset: they go to OUTBOX_DIR)',
  MAIL_FROM: 'the sender of those notices',
  PURGE_BATCH_SIZE: 'rows per delete statement',
} as const;
type Variable = keyof typeof VARIABLES;

const MAILS: Variable[] = ['SMTP_URL', 'MAIL_FROM', 'PUBLIC_URL'];

/** What each command reads, by its path, beyond LOG_LEVEL (what it logs on stderr), which all read. */
const NEEDS: Record<string, readonly Variable[]> = {
  'user create': [],
  'user show': [],
  'user update': [],
  'user delete': ['PICTURES_DIR'],
  'user factors': MAILS,
  'user suspend': MAILS,
  'user unsuspend': MAILS,
  'user hide-bio': [],
  'user remove-picture': ['PICTURES_DIR'],
  'reports list': [],
  'moderation actions': [],
  'app create': [],
  'app update': [],
  'app rotate-secret': [],
  'app delete': [],
  'code issue': [],
  'game create': [],
  'game list': [],
  'game update': [],
  'game delete': [],
  'game remove': [],
  'picture set': ['PICTURES_DIR'],
  'picture remove': ['PICTURES_DIR'],
  'picture import': ['PICTURES_DIR'],
  'keys list': ['SESSION_SECRET'],
  'keys rotate': ['SESSION_SECRET'],
  'upstream add': ['SESSION_SECRET', 'PUBLIC_URL'],
  'upstream list': ['PUBLIC_URL'],
  'upstream enable': ['PUBLIC_URL'],
  'upstream disable': ['PUBLIC_URL'],
  'upstream update': ['PUBLIC_URL'],
  'upstream test': ['SESSION_SECRET', 'PUBLIC_URL'],
  'upstream remove': [],
  backup: ['PICTURES_DIR'],
  purge: ['PURGE_BATCH_SIZE'],
};

function leaves(command: Command, path: string[] = []): { command: Command; path: string }[] {
  if (command.commands.length === 0) return [{ command, path: path.join(' ') }];
  return command.commands.flatMap((sub) => leaves(sub, [...path, sub.name()]));
}

/** Every variable `path` reads, DATABASE_URL first. */
function needsOf(path: string): Variable[] {
  const needs = NEEDS[path];
  if (!needs) throw new Error(`src/cli/environment.ts names no environment for "admin ${path}"`);
  return ['DATABASE_URL', ...needs];
}

/**
 * Ends `admin --help` with what each command reads, and each command's `--help` with its own. A
 * command missing from the table fails at once (the CLI test runs every command's help).
 */
export function describeEnvironment(program: Command): void {
  const commands = leaves(program);
  for (const { command, path } of commands) {
    const lines = needsOf(path).map((name) => `  ${name}: ${VARIABLES[name]}`);
    command.addHelpText('after', `\nEnvironment (the server's; docs/configuration.md):\n${lines.join('\n')}\n  LOG_LEVEL: what it logs on stderr\n`);
  }
  const table = commands.map(({ path }) => `  ${path.padEnd(20)}${needsOf(path).join(', ')}`);
  program.addHelpText('after', `\nEnvironment: run every command with the server's (docs/configuration.md); each reads LOG_LEVEL and:\n${table.join('\n')}\n`);
}
