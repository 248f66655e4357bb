/** `reports list` and `moderation actions`: the queue and the record, as the moderators' API gives them. */
import type { Command } from 'commander';
import { listModerationActions, reportQueue, type ModerationDeps } from '../moderation/moderation.js';
import { int } from './arguments.js';
import type { CliContext } from './context.js';

/** What the moderation functions take; the audit lines go to stderr (stdout carries only the answer). */
export async function moderationDeps(cli: CliContext): Promise<ModerationDeps> {
  return { ...(await cli.deps()), audit: cli.audit() };
}

export function moderationCommands(program: Command, cli: CliContext): void {
  program
    .command('reports')
    .description('Reports on users')
    .command('list')
    .description('Print the queue of open reports, grouped by reported user (as listReports)')
    .action(async () => {
      cli.print(await reportQueue(await moderationDeps(cli), null));
    });
  program
    .command('moderation')
    .description('The record of moderator actions')
    .command('actions')
    .description('Print moderator actions, newest first (operator actions have no moderator)')
    .option('--target <id>', 'only actions on this user id', int('--target'))
    .option('--limit <n>', 'at most this many (1-200, default 50)', int('--limit'))
    .action(async (o: { target?: number; limit?: number }) => {
      cli.print({ actions: await listModerationActions(await moderationDeps(cli), null, { targetId: o.target, limit: o.limit }) });
    });
}
