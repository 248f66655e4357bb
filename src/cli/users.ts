/** `user create|show|update|delete|factors|suspend|unsuspend|hide-bio|remove-picture`. */
import type { Command } from 'commander';
import { deleteUser } from '../accounts/deletion.js';
import { accountFactors, resetFactors } from '../accounts/factors.js';
import { InvalidInput, NotFound } from '../domain/errors.js';
import { hideBio, liftSuspension, removePicture, setModLevel, suspendUser } from '../moderation/moderation.js';
import type { UserPatch } from '../domain/users.js';
import { createUser, toPublicUser, updateUser } from '../accounts/users.js';
import { int, list } from './arguments.js';
import type { CliContext } from './context.js';
import { moderationDeps } from './moderation.js';

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
      const found = await (await cli.store()).users.getPublicUser(o.id);
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
      // Checked before anything is written; a new level is a moderation action of its own (recorded and audited).
      if (o.modLevel !== undefined && o.modLevel > 3) throw new InvalidInput('modLevel must be an integer from 0 to 3');
      const patch: UserPatch = {
        bio: o.bio,
        flairs: o.flairs,
        equippedFlair: o.equippedFlair,
        playMinutes: o.playMinutes,
        lastHeartbeat: o.lastHeartbeat,
      };
      const store = await cli.store();
      let updated = await updateUser(store, o.id, patch);
      if (o.modLevel !== undefined && o.modLevel !== updated.modLevel) {
        await setModLevel(await moderationDeps(cli), null, o.id, { modLevel: o.modLevel });
        updated = (await store.users.getUser(o.id))!;
      }
      cli.print(toPublicUser(updated));
    });
  user
    .command('delete')
    .description('Delete a user for good, with their grants, sessions, tokens, pictures, apps and games (the id and name are never reused)')
    .requiredOption('--id <id>', 'user id', int('--id'))
    .action(async (o: { id: number }) => {
      // The audit line goes to stderr: stdout carries only the command's JSON answer.
      await deleteUser({ ...(await cli.deps()), pictures: await cli.pictures(), audit: cli.audit() }, o.id, 'operator');
      cli.print({ id: o.id, deleted: true });
    });
  user
    .command('factors')
    .description("Print a user's passkeys and authenticator app; with --reset, remove them all and end the user's sessions")
    .requiredOption('--id <id>', 'user id', int('--id'))
    .option('--reset', 'remove every passkey, the authenticator app and the recovery codes, end every session, and mail the user a notice')
    .action(async (o: { id: number; reset?: boolean }) => {
      const store = await cli.store();
      if (!o.reset) return cli.print(await accountFactors(store, o.id));
      // Log lines (the audit line, a mail failure) go to stderr: stdout carries only the JSON answer.
      // The audit event `factors_reset` mails the notice (src/accounts/notices.ts, to a verified
      // address); a mail that failed was logged, and the reset stands.
      const reset = await resetFactors({ ...(await cli.deps()), audit: cli.audit() }, o.id);
      const notified = (await cli.noticesSent()).some((n) => n.userId === o.id && n.change === 'factors_reset');
      cli.print({ id: o.id, ...reset, notified });
    });
  // Moderation as the operator: on any user, recorded with no moderator (docs/moderation.md#operator-cli).
  user
    .command('suspend')
    .description("Suspend a user: end their sessions, revoke their tokens, void their codes, refuse sign-in; prints the user as moderators see them")
    .requiredOption('--id <id>', 'user id', int('--id'))
    .requiredOption('--reason <text>', 'why, as the user is shown it (1-500 characters)')
    .option('--until <iso>', 'when it ends by itself (ISO 8601 date-time in the future); left out, until lifted')
    .action(async (o: { id: number; reason: string; until?: string }) => {
      cli.print(await suspendUser(await moderationDeps(cli), null, o.id, { reason: o.reason, until: o.until }));
    });
  user
    .command('unsuspend')
    .description("Lift a user's suspension (their old sessions and tokens stay ended)")
    .requiredOption('--id <id>', 'user id', int('--id'))
    .action(async (o: { id: number }) => {
      cli.print(await liftSuspension(await moderationDeps(cli), null, o.id));
    });
  user
    .command('hide-bio')
    .description("Empty a user's bio; they are shown why until they write a new one")
    .requiredOption('--id <id>', 'user id', int('--id'))
    .requiredOption('--reason <text>', 'why (1-500 characters)')
    .action(async (o: { id: number; reason: string }) => {
      cli.print(await hideBio(await moderationDeps(cli), null, o.id, { reason: o.reason }));
    });
  user
    .command('remove-picture')
    .description("Remove a user's profile picture (the default picture answers again)")
    .requiredOption('--id <id>', 'user id', int('--id'))
    .requiredOption('--reason <text>', 'why (1-500 characters)')
    .action(async (o: { id: number; reason: string }) => {
      cli.print(await removePicture({ ...(await moderationDeps(cli)), pictures: await cli.pictures() }, null, o.id, { reason: o.reason }));
    });
}
