/** `game create|list|update|delete|remove`: the same domain functions as the games API, without its ownership check. */
import type { Command } from 'commander';
import { deleteGame, gameView, registerGame, updateGame } from '../games/games.js';
import { removeGame } from '../moderation/moderation.js';
import { int } from './arguments.js';
import type { CliContext } from './context.js';
import { moderationDeps } from './moderation.js';

export function gameCommands(program: Command, cli: CliContext): void {
  const game = program.command('game').description('Manage games');
  game
    .command('create')
    .description('Register a game hosted at URL; /play/<id> frames it')
    .requiredOption('--author <userId>', 'id of the author (their apps may use the game flow here)', int('--author'))
    .requiredOption('--title <title>', 'game title, 1-64 characters')
    .requiredOption('--url <url>', 'address the game is hosted at (https, or http on localhost)')
    .action(async (o: { author: number; title: string; url: string }) => {
      const created = await registerGame(await cli.deps(), { authorId: o.author, title: o.title, url: o.url });
      cli.print({ id: created.id });
    });
  game
    .command('list')
    .description('List every game, newest first')
    .action(async () => {
      cli.print({ games: (await (await cli.store()).games.listGames()).map(gameView) });
    });
  game
    .command('update')
    .description("Change a game's title and/or address; prints the game as listGames gives it")
    .requiredOption('--id <id>', 'game id', int('--id'))
    .option('--title <title>', 'new title, 1-64 characters')
    .option('--url <url>', 'new address (https, or http on localhost); /play/<id> frames it from now on')
    .action(async (o: { id: number; title?: string; url?: string }, command: Command) => {
      if (o.title === undefined && o.url === undefined) command.error('error: give --title, --url or both');
      cli.print(gameView(await updateGame(await cli.store(), o.id, { title: o.title, url: o.url })));
    });
  game
    .command('delete')
    .description('Delete a game: /play/<id> answers 404 and its game flow stops')
    .requiredOption('--id <id>', 'game id', int('--id'))
    .action(async (o: { id: number }) => {
      await deleteGame(await cli.store(), o.id);
      cli.print({});
    });
  // Moderation as the operator (docs/moderation.md#operator-cli): recorded on the author, with no moderator.
  game
    .command('remove')
    .description("Remove a game as a moderator would, with a reason kept in the record; prints its author as moderators see them")
    .requiredOption('--id <id>', 'game id', int('--id'))
    .requiredOption('--reason <text>', 'why (1-500 characters)')
    .action(async (o: { id: number; reason: string }) => {
      cli.print(await removeGame(await moderationDeps(cli), null, o.id, { reason: o.reason }));
    });
}
