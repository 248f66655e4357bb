/** `game create|list`. */
import type { Command } from 'commander';
import { gameView, registerGame } from '../games/games.js';
import { int } from './arguments.js';
import type { CliContext } from './context.js';

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
      cli.print({ games: (await (await cli.store()).listGames()).map(gameView) });
    });
}
