/** `backup` and `purge`: upkeep of the database as a whole. */
import type { Command } from 'commander';
import { SIZE_NAMES } from '../pictures/images.js';
import { DEFAULT_PURGE_OPTIONS, purgeExpired } from '../purge/purge.js';
import { backupSqlite } from '../store/backup.js';
import type { CliContext } from './context.js';

export function databaseCommands(program: Command, cli: CliContext): void {
  program
    .command('backup')
    .description('Copy the SQLite database to FILE while the service runs (SQLite online backup); prints the picture layout to copy with it. PostgreSQL: use pg_dump (pictures included)')
    .requiredOption('--out <file>', 'the copy to write (must not exist yet)')
    .action(async (o: { out: string }) => {
      const config = cli.config();
      const copy = await backupSqlite(config.database, o.out);
      cli.print({
        ...copy,
        pictures: {
          dir: config.picturesDir,
          layout: `${SIZE_NAMES.map((size) => `${size}/`).join(' ')} each holding <userId>-<pfpTimestamp>.webp`,
          // Copy the folder right after the database: a picture changed in between may be missing
          // from the copy (that user shows no picture until the next upload); extra files are
          // swept at start once older than PICTURE_SWEEP_AGE_SECONDS.
          copy: `right after this backup, copy ${config.picturesDir} too (e.g. cp -a ${config.picturesDir} <backup-dir>/pictures)`,
        },
      });
    });
  program
    .command('purge')
    .description('Delete expired codes, tokens and sessions now (what the server does every PURGE_INTERVAL_SECONDS)')
    .action(async () => {
      const batchSize = cli.config().purgeBatchSize;
      cli.print(await purgeExpired(await cli.deps(), { ...DEFAULT_PURGE_OPTIONS, batchSize, pauseMs: 0 }));
    });
}
