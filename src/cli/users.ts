/** `user create|show|update|delete`. */
import type { Command } from 'commander';
import { pino } from 'pino';
import { deleteUser } from '../accounts/deletion.js';
import { createAudit } from '../audit.js';
import { NotFound } from '../domain/errors.js';
import type { UserPatch } from '../store/types.js';
import { createUser, toPublicUser, updateUser } from '../users/users.js';
import { int, list } from './arguments.js';
import type { CliContext } from './context.js';

export function userCommands(program: Command, cli: CliContext): void {
  const user = program.command('user').description('Manage users');
  user
    .command('create')
    .description('Create a user')
    .requiredOption('--name <name>', 'user name, 3-28 of A-Za-z0-9_-')
    .requiredOption('--email <email>', 'email address')
    .requiredOption('--password <password>', 'password, 8-256 characters')
    .option('--unverified', 'leave the email address unverified (the user proves it by mail before apps may see it)')
    .action(async (o: { name: string; email: string; password: string; unverified?: boolean }) => {
      // The operator vouches for the addresses they enter, unless told otherwise.
      const account = { name: o.name, email: o.email, password: o.password, emailVerified: !o.unverified };
      const created = await createUser(await cli.deps(), account);
      cli.print({ id: created.id, name: created.name });
    });
  user
    .command('show')
    .description('Print the public profile of a user')
    .requiredOption('--id <id>', 'user id', int('--id'))
    .action(async (o: { id: number }) => {
      const found = await (await cli.store()).getPublicUser(o.id);
      if (!found) throw new NotFound(`User ${o.id} not found`);
      cli.print(toPublicUser(found));
    });
  user
    .command('update')
    .description('Change profile fields of a user; prints the public user')
    .requiredOption('--id <id>', 'user id', int('--id'))
    .option('--bio <text>', 'biography, at most 1024 characters')
    .option('--flairs <list>', 'comma-separated flairs the user owns', list)
    .option('--equipped-flair <flair>', 'equipped flair, one of the flairs')
    .option('--mod-level <n>', '0 user, 1 moderator, 2 admin, 3 owner', int('--mod-level'))
    .option('--play-minutes <n>', 'play time in minutes', int('--play-minutes'))
    .option('--last-heartbeat <ms>', 'last heartbeat, ms since epoch', int('--last-heartbeat'))
    .action(async (o: { id: number; bio?: string; flairs?: string[]; equippedFlair?: string; modLevel?: number; playMinutes?: number; lastHeartbeat?: number }) => {
      const patch: UserPatch = {
        bio: o.bio,
        flairs: o.flairs,
        equippedFlair: o.equippedFlair,
        modLevel: o.modLevel,
        playMinutes: o.playMinutes,
        lastHeartbeat: o.lastHeartbeat,
      };
      cli.print(toPublicUser(await updateUser(await cli.store(), o.id, patch)));
    });
  user
    .command('delete')
    .description('Delete a user for good, with their grants, sessions, tokens, pictures, apps and games (the id and name are never reused)')
    .requiredOption('--id <id>', 'user id', int('--id'))
    .action(async (o: { id: number }) => {
      // The audit line goes to stderr: stdout carries only the command's JSON answer.
      const audit = createAudit(pino({ level: cli.config().logLevel }, pino.destination({ fd: 2, sync: true })));
      await deleteUser({ ...(await cli.deps()), files: cli.files(), audit }, o.id, 'operator');
      cli.print({ id: o.id, deleted: true });
    });
}
