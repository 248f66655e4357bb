/** `picture set|remove|import`. */
import fs from 'node:fs/promises';
import type { Command } from 'commander';
import { InvalidInput } from '../domain/errors.js';
import { importPictureFiles, removePicture, setPicture } from '../pictures/pictures.js';
import { int } from './arguments.js';
import type { CliContext } from './context.js';

export function pictureCommands(program: Command, cli: CliContext): void {
  const picture = program.command('picture').description('Profile pictures');
  picture
    .command('set')
    .description('Set a user\'s picture from an image file (any format sharp reads, at most 8 MB)')
    .requiredOption('--user <id>', 'user id', int('--user'))
    .requiredOption('--file <path>', 'image file')
    .action(async (o: { user: number; file: string }) => {
      let input: Buffer;
      try {
        input = await fs.readFile(o.file);
      } catch (err) {
        throw new InvalidInput(`Cannot read ${o.file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
      }
      cli.print({ pfpTimestamp: await setPicture({ ...(await cli.deps()), pictures: await cli.pictures() }, o.user, input) });
    });
  picture
    .command('remove')
    .description('Remove a user\'s picture')
    .requiredOption('--user <id>', 'user id', int('--user'))
    .action(async (o: { user: number }) => {
      await removePicture({ ...(await cli.deps()), pictures: await cli.pictures() }, o.user);
      cli.print({});
    });
  picture
    .command('import')
    .description('PostgreSQL: copy the current pictures found in PICTURES_DIR into the database (what every start does); prints {imported, missing}')
    .action(async () => {
      const config = cli.config();
      if (config.database.dialect !== 'postgres') {
        throw new InvalidInput('import is for PostgreSQL: on SQLite the pictures stay in PICTURES_DIR');
      }
      const { store } = await cli.deps();
      cli.print(await importPictureFiles({ store, pictures: await cli.pictures() }, config.picturesDir));
    });
}
