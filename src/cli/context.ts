/**
 * What every operator command works with: the server's configuration and store, each set up at most
 * once per run and only when a command needs it, so `--help` and usage errors need no environment
 * and no database, and `backup` never opens the store.
 */
import { pino, type Logger } from 'pino';
import { securityNotices } from '../accounts/notices.js';
import { createAudit, type Audit } from '../audit.js';
import { loadConfig, type Config } from '../config.js';
import { createMailer, type Mailer } from '../mail/mailer.js';
import type { SecurityChange } from '../mail/messages.js';
import { keepSessionSecret } from '../security/session-secret-file.js';
import { picturesFor, type PictureStore } from '../pictures/pictures.js';
import { openStoreAt } from '../store/open.js';
import type { Store } from '../store/types.js';

export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  now?: () => number;
}

export interface CliContext {
  /**
   * The same configuration as the server's, read from the environment on first use, with the same
   * session key: SESSION_SECRET, or the key kept in the data folder when it is unset.
   */
  config(): Config;
  /** The server's store, opened and migrated on first use. */
  store(): Promise<Store>;
  /** What most domain functions take: the store and the clock. */
  deps(): Promise<{ store: Store; now: () => number }>;
  /** Where the pictures are: PICTURES_DIR on SQLite, the database on PostgreSQL. */
  pictures(): Promise<PictureStore>;
  /** The command's answer: one JSON line on stdout. */
  print(value: unknown): void;
  /** A line of text on stdout, for the one command that answers in lines (`upstream test`). */
  line(text: string): void;
  /** A note to the operator on stderr (stdout carries only the answer). */
  note(text: string): void;
  /** Log lines (audit lines included) at LOG_LEVEL, on stderr: stdout carries only the answer. */
  logger(): Logger;
  /**
   * The audit trail of the command's changes, as the server's: its lines on stderr, and the
   * security notices (src/accounts/notices.ts) mailed in the background, which close() waits for.
   */
  audit(): Audit;
  /** The security notices mailed so far, once every mail started has been handed over (or failed, logged). */
  noticesSent(): Promise<readonly SentNotice[]>;
}

/** A security notice the mailer took: to whom, of what. */
interface SentNotice {
  userId: number;
  change: SecurityChange;
}

export function createCliContext(io: CliIo): CliContext & { close(): Promise<void> } {
  const now = io.now ?? Date.now;
  let config: Config | undefined;
  let store: Store | undefined;
  let mailer: Mailer | undefined;
  let audit: Audit | undefined;
  const sent: SentNotice[] = [];
  const getConfig = (): Config => (config ??= keepSessionSecret(loadConfig(io.env)));
  const logger = () => pino({ level: getConfig().logLevel }, { write: (line: string) => io.stderr(line) });
  const getStore = async (): Promise<Store> => {
    if (!store) {
      const opened = openStoreAt(getConfig().database);
      // Kept before migrating, so that a store whose migration fails is still closed.
      store = opened;
      await opened.migrate();
    }
    return store;
  };
  // As the server composes it (src/app.ts): each line written, then the security notices.
  const composeAudit = (): Audit => {
    const log = logger();
    mailer = createMailer(getConfig(), log);
    const users = {
      users: { getUser: async (id: number) => (await getStore()).users.getUser(id) },
      apps: { getApp: async (clientId: string) => (await getStore()).apps.getApp(clientId) },
    };
    const notices = securityNotices({ store: users, mailer, config: getConfig(), told: (userId, change) => sent.push({ userId, change }) });
    return createAudit(log, [notices]);
  };
  return {
    config: getConfig,
    store: getStore,
    deps: async () => ({ store: await getStore(), now }),
    pictures: async () => picturesFor(getConfig(), await getStore(), now),
    print: (value) => io.stdout(`${JSON.stringify(value)}\n`),
    line: (text) => io.stdout(`${text}\n`),
    note: (text) => io.stderr(`note: ${text}\n`),
    logger,
    audit: () => (audit ??= composeAudit()),
    noticesSent: async () => {
      await mailer?.idle();
      return sent;
    },
    close: async () => {
      // The notices read the store: they are out before it closes.
      await mailer?.idle();
      await store?.close();
    },
  };
}
