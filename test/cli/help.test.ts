/**
 * `admin --help` and each command's `--help` name the environment the command reads (issue 51:
 * the help named none, and a command run without the server's SESSION_SECRET, PICTURES_DIR or
 * mail settings works on something else than the server's). Help needs no environment at all.
 */
import { describe, expect, it } from 'vitest';
import { cliRunner } from './run.js';

const { cli } = cliRunner(() => ({}));

/** The lines after a help's "Environment" heading. */
function environmentOf(help: string): string[] {
  const at = help.indexOf('\nEnvironment');
  expect(at, help).toBeGreaterThan(-1);
  return help.slice(at + 1).trimEnd().split('\n').slice(1);
}

describe('the help names the environment', () => {
  it('admin --help ends with what every command reads: DATABASE_URL for all, SESSION_SECRET to seal and open, the mail settings to mail, PICTURES_DIR for pictures and backups', async () => {
    const run = await cli('--help');
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(run.stdout).toContain("\nEnvironment: run every command with the server's (docs/configuration.md); each reads LOG_LEVEL and:\n");
    const table = environmentOf(run.stdout);
    expect(table).toHaveLength(35);
    for (const line of table) expect(line).toMatch(/^ {2}[a-z -]+ +DATABASE_URL(, [A-Z_]+)*$/);
    const mail = 'DATABASE_URL, SMTP_URL, MAIL_FROM, PUBLIC_URL';
    for (const [command, reads] of [
      ['user create', 'DATABASE_URL'],
      ['user delete', 'DATABASE_URL, PICTURES_DIR'],
      ['user factors', mail],
      ['user suspend', mail],
      ['user unsuspend', mail],
      ['picture set', 'DATABASE_URL, PICTURES_DIR'],
      ['picture import', 'DATABASE_URL, PICTURES_DIR'],
      ['keys list', 'DATABASE_URL, SESSION_SECRET'],
      ['keys rotate', 'DATABASE_URL, SESSION_SECRET'],
      ['upstream add', 'DATABASE_URL, SESSION_SECRET, PUBLIC_URL'],
      ['upstream test', 'DATABASE_URL, SESSION_SECRET, PUBLIC_URL'],
      ['upstream list', 'DATABASE_URL, PUBLIC_URL'],
      ['backup', 'DATABASE_URL, PICTURES_DIR'],
      ['purge', 'DATABASE_URL, PURGE_BATCH_SIZE'],
    ]) {
      expect(table).toContain(`  ${command!.padEnd(20)}${reads}`);
    }
  });

  it("each command's --help ends with what it reads, each variable with what it is to it", async () => {
    const commands = environmentOf((await cli('--help')).stdout).map((line) => line.trim().split(/ {2,}/)[0]!);
    for (const command of commands) {
      const run = await cli(...command.split(' '), '--help');
      expect([command, run.code, run.stderr]).toEqual([command, 0, '']);
      const lines = environmentOf(run.stdout);
      expect(lines[0]).toBe("  DATABASE_URL: the server's database (and DATABASE_POOL_SIZE on PostgreSQL)");
      expect(lines.at(-1)).toBe('  LOG_LEVEL: what it logs on stderr');
    }
    expect(environmentOf((await cli('upstream', 'add', '--help')).stdout)).toEqual([
      "  DATABASE_URL: the server's database (and DATABASE_POOL_SIZE on PostgreSQL)",
      "  SESSION_SECRET: the server's key, which seals and opens the secrets it keeps",
      "  PUBLIC_URL: the server's address, in the callbacks and mails it makes",
      '  LOG_LEVEL: what it logs on stderr',
    ]);
    expect(environmentOf((await cli('user', 'factors', '--help')).stdout)).toEqual([
      "  DATABASE_URL: the server's database (and DATABASE_POOL_SIZE on PostgreSQL)",
      '  SMTP_URL: the mail server of the security notices it mails (unset: they go to OUTBOX_DIR)',
      '  MAIL_FROM: the sender of those notices',
      "  PUBLIC_URL: the server's address, in the callbacks and mails it makes",
      '  LOG_LEVEL: what it logs on stderr',
    ]);
    expect(environmentOf((await cli('backup', '--help')).stdout)).toEqual([
      "  DATABASE_URL: the server's database (and DATABASE_POOL_SIZE on PostgreSQL)",
      '  PICTURES_DIR: the picture folder (on SQLite; on PostgreSQL the pictures are in the database)',
      '  LOG_LEVEL: what it logs on stderr',
    ]);
  });
});
