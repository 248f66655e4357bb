/**
 * Operator CLI: `npm run --silent admin -- <command>`. Each command prints one JSON object on
 * stdout; bad input exits non-zero with `error: <message>` on stderr. Same config as the server.
 */
import fs from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { pino } from 'pino';
import { deleteUser } from '../accounts/deletion.js';
import { createAudit } from '../audit.js';
import { ConfigError, loadConfig } from '../config.js';
import { DomainError, InvalidInput, NotFound, type ErrorKind } from '../domain/errors.js';
import { gameView, registerGame } from '../games/games.js';
import { registerOAuthApp, rotateSecret } from '../oauth/clients.js';
import { issueCode } from '../oauth/codes.js';
import { SIZE_NAMES } from '../pictures/images.js';
import { PictureFiles, removePicture, setPicture } from '../pictures/pictures.js';
import { DEFAULT_PURGE_OPTIONS, purgeExpired } from '../purge/purge.js';
import { backupSqlite } from '../store/backup.js';
import { openStoreAt } from '../store/open.js';
import type { Store, UserPatch } from '../store/types.js';
import { createUser, toPublicUser, updateUser } from '../users/users.js';

export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  now?: () => number;
}

function int(name: string) {
  return (value: string): number => {
    if (!/^[0-9]{1,16}$/.test(value) || !Number.isSafeInteger(Number(value))) {
      throw new InvalidArgumentError(`${name} must be a non-negative integer`);
    }
    return Number(value);
  };
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function list(value: string): string[] {
  return value.split(',').map((s) => s.trim()).filter((s) => s !== '');
}

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
};

/** Runs one CLI invocation; resolves to the exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let store: Store | undefined;
  const now = io.now ?? Date.now;
  const openStore = async (): Promise<Store> => {
    if (!store) {
      const opened = openStoreAt(loadConfig(io.env).database);
      store = opened;
      await opened.migrate();
    }
    return store;
  };
  const print = (value: unknown) => io.stdout(`${JSON.stringify(value)}\n`);

  const program = new Command('admin')
    .description('Operator commands for the identity service (same environment as the server)')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError(false);

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
      const created = await createUser({ store: await openStore(), now }, account);
      print({ id: created.id, name: created.name });
    });
  user
    .command('show')
    .description('Print the public profile of a user')
    .requiredOption('--id <id>', 'user id', int('--id'))
    .action(async (o: { id: number }) => {
      const found = await (await openStore()).getUser(o.id);
      if (!found) throw new NotFound(`User ${o.id} not found`);
      print(toPublicUser(found));
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
      print(toPublicUser(await updateUser(await openStore(), o.id, patch)));
    });

  user
    .command('delete')
    .description('Delete a user for good, with their grants, sessions, tokens, pictures, apps and games (the id and name are never reused)')
    .requiredOption('--id <id>', 'user id', int('--id'))
    .action(async (o: { id: number }) => {
      const config = loadConfig(io.env);
      // The audit line goes to stderr: stdout carries only the command's JSON answer.
      const audit = createAudit(pino({ level: config.logLevel }, pino.destination({ fd: 2, sync: true })));
      await deleteUser({ store: await openStore(), now, files: new PictureFiles(config.picturesDir), audit }, o.id, 'operator');
      print({ id: o.id, deleted: true });
    });

  const app = program.command('app').description('Manage apps (OAuth clients)');
  app
    .command('create')
    .description('Register an app; prints its client id and its secret (shown only now)')
    .requiredOption('--owner <userId>', 'id of the owning user', int('--owner'))
    .requiredOption('--name <name>', 'app name, 1-64 characters')
    .requiredOption('--redirect-uri <uri>', 'allowed redirect URI (repeat for up to 10)', collect)
    .action(async (o: { owner: number; name: string; redirectUri: string[] }) => {
      const created = await registerOAuthApp({ store: await openStore(), now }, { ownerId: o.owner, name: o.name, redirectUris: o.redirectUri });
      print({ client_id: created.app.clientId, client_secret: created.clientSecret });
    });
  app
    .command('rotate-secret')
    .description('Replace the client secret; the old one stops working at once')
    .requiredOption('--client-id <id>', 'client id')
    .action(async (o: { clientId: string }) => {
      const secret = await rotateSecret({ store: await openStore(), now }, o.clientId);
      print({ client_id: o.clientId, client_secret: secret });
    });
  app
    .command('delete')
    .description('Delete an app with its codes and tokens')
    .requiredOption('--client-id <id>', 'client id')
    .action(async (o: { clientId: string }) => {
      if (!(await (await openStore()).deleteApp(o.clientId))) throw new NotFound(`App ${o.clientId} not found`);
      print({});
    });

  program
    .command('code')
    .description('Authorization codes')
    .command('issue')
    .description('Issue an authorization code (as if the user had consented); `email` needs a verified address')
    .requiredOption('--user <id>', 'user id', int('--user'))
    .requiredOption('--client-id <id>', 'client id')
    .requiredOption('--scope <scopes>', 'space-separated scopes: userinfo, email')
    .option('--redirect-uri <uri>', 'bind the code to this registered redirect URI')
    .option('--code-challenge <challenge>', 'PKCE S256 code challenge')
    .action(async (o: { user: number; clientId: string; scope: string; redirectUri?: string; codeChallenge?: string }) => {
      const issued = await issueCode(
        { store: await openStore(), now },
        { userId: o.user, clientId: o.clientId, scope: o.scope, redirectUri: o.redirectUri ?? null, codeChallenge: o.codeChallenge ?? null },
      );
      print({ code: issued.code });
    });

  const game = program.command('game').description('Manage games');
  game
    .command('create')
    .description('Register a game hosted at URL; /play/<id> frames it')
    .requiredOption('--author <userId>', 'id of the author (their apps may use the game flow here)', int('--author'))
    .requiredOption('--title <title>', 'game title, 1-64 characters')
    .requiredOption('--url <url>', 'address the game is hosted at (https, or http on localhost)')
    .action(async (o: { author: number; title: string; url: string }) => {
      const created = await registerGame({ store: await openStore(), now }, { authorId: o.author, title: o.title, url: o.url });
      print({ id: created.id });
    });
  game
    .command('list')
    .description('List every game, newest first')
    .action(async () => {
      print({ games: (await (await openStore()).listGames()).map(gameView) });
    });

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
      const files = new PictureFiles(loadConfig(io.env).picturesDir);
      print({ pfpTimestamp: await setPicture({ store: await openStore(), files, now }, o.user, input) });
    });
  picture
    .command('remove')
    .description('Remove a user\'s picture')
    .requiredOption('--user <id>', 'user id', int('--user'))
    .action(async (o: { user: number }) => {
      const files = new PictureFiles(loadConfig(io.env).picturesDir);
      await removePicture({ store: await openStore(), files, now }, o.user);
      print({});
    });

  program
    .command('backup')
    .description('Copy the SQLite database to FILE while the service runs (SQLite online backup); prints the picture layout to copy with it')
    .requiredOption('--out <file>', 'the copy to write (must not exist yet)')
    .action(async (o: { out: string }) => {
      const config = loadConfig(io.env);
      const copy = await backupSqlite(config.database, o.out);
      print({
        ...copy,
        pictures: {
          dir: config.picturesDir,
          layout: `${SIZE_NAMES.map((size) => `${size}/`).join(' ')} each holding <userId>-<pfpTimestamp>.webp`,
          // Copy the folder right after the database: a picture changed in between may be missing
          // from the copy (that user shows no picture until the next upload); extra files are
          // swept at start once older than PICTURE_SWEEP_AGE_SECONDS.
          copy: `right after this backup, copy ${config.picturesDir} too (e.g. rsync -a ${config.picturesDir}/ <backup-dir>/pictures/)`,
        },
      });
    });

  program
    .command('purge')
    .description('Delete expired codes, tokens and sessions now (what the server does every PURGE_INTERVAL_SECONDS)')
    .action(async () => {
      const batchSize = loadConfig(io.env).purgeBatchSize;
      print(await purgeExpired({ store: await openStore(), now }, { ...DEFAULT_PURGE_OPTIONS, batchSize, pauseMs: 0 }));
    });

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
    await store?.close();
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
