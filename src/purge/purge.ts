/**
 * Deletes expired codes, access and refresh tokens, device authorizations and sessions, in
 * bounded batches, so the tables stay the size of the live data instead of growing by every
 * exchange forever.
 */
import type { Logger } from 'pino';
import type { PurgeCounts } from '../store/purge/store.js';
import { LIFETIMES } from '../domain/lifetimes.js';
import type { Store } from '../store/types.js';

interface PurgeDeps {
  store: Pick<Store, 'purge'>;
  now: () => number;
}

interface PurgeOptions {
  /** Rows per table per statement: bounds how long one statement holds the database writer. */
  batchSize: number;
  /**
   * The shortest pause between batches; the pause is otherwise REST_FACTOR times what the batch
   * took, so the purge uses at most a quarter of the database's (and, on SQLite, the event loop's)
   * time however slow the disk is, and requests queued behind a batch run before the next one.
   */
  pauseMs: number;
  /** Checked between batches: a stopping server does not wait for a backlog to drain. */
  stopped?: () => boolean;
}

export const DEFAULT_PURGE_OPTIONS: PurgeOptions = { batchSize: 250, pauseMs: 5 };

/** Rest this many times as long as a batch took (see PurgeOptions.pauseMs). */
const REST_FACTOR = 3;

/**
 * A code row must outlive every token issued from it: a replayed code revokes those tokens
 * (RFC 6749 4.1.2), which needs the code row to recognise the replay. A code is redeemed before
 * it expires and its token lives LIFETIMES.accessToken, so no token of a code outlives
 * `code.expiresAt + LIFETIMES.accessToken`. A refresh token family outlives its code: a code
 * replayed after its row is gone is an unknown code (refused), and no longer ends the family.
 * A refresh token's row stays until its own idle expiry, used or not, so a spent one used again
 * is recognised (and ends its family) for as long as it could have been used at all.
 */
export const CODE_KEPT_AFTER_EXPIRY_MS = LIFETIMES.accessToken;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Purges until nothing expired is left (or `stopped`), one batch per table at a time. Safe to run
 * on several instances at once: each batch is an idempotent delete by key.
 */
export async function purgeExpired(deps: PurgeDeps, options: PurgeOptions = DEFAULT_PURGE_OPTIONS): Promise<PurgeCounts> {
  const total: PurgeCounts = { tokens: 0, refreshTokens: 0, deviceAuthorizations: 0, codes: 0, sessions: 0 };
  for (;;) {
    const now = deps.now();
    const started = performance.now();
    const batch = await deps.store.purge.purgeExpired({
      tokensExpiredBy: now,
      codesExpiredBy: now - CODE_KEPT_AFTER_EXPIRY_MS,
      sessionsExpiredBy: now,
      limit: options.batchSize,
    });
    total.tokens += batch.tokens;
    total.refreshTokens += batch.refreshTokens;
    total.deviceAuthorizations += batch.deviceAuthorizations;
    total.codes += batch.codes;
    total.sessions += batch.sessions;
    const drained = Math.max(batch.tokens, batch.refreshTokens, batch.deviceAuthorizations, batch.codes, batch.sessions) < options.batchSize;
    if (drained || options.stopped?.()) return total;
    if (options.pauseMs > 0) await sleep(Math.max(options.pauseMs, (performance.now() - started) * REST_FACTOR));
  }
}

interface Purger {
  /** Stops the timer and waits for a running purge to finish its current batch. */
  stop(): Promise<void>;
}

/**
 * Runs `run` once after `ms` unless the returned function cancels it first: the purger's only
 * trigger. The real one is an unref'd setTimeout (it keeps no process alive); a test hands in its
 * own, which fires only when told, to see every run asked for without waiting for any.
 */
export type Schedule = (run: () => void, ms: number) => () => void;

const timerSchedule: Schedule = (run, ms) => {
  const timer = setTimeout(run, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

/**
 * Runs purgeExpired every `intervalSeconds` (0: never). Each instance of a deployment runs its
 * own; the start is spread over the first interval so instances started together do not purge in
 * step. A failed run is logged and retried at the next interval.
 */
export function startPurger(
  deps: PurgeDeps & { logger: Logger; schedule?: Schedule },
  intervalSeconds: number,
  options: PurgeOptions = DEFAULT_PURGE_OPTIONS,
): Purger {
  if (intervalSeconds <= 0) return { stop: async () => {} };
  let stopping = false;
  let running: Promise<void> | undefined;
  let cancel: (() => void) | undefined;
  const schedule = (ms: number) => {
    cancel = (deps.schedule ?? timerSchedule)(run, ms);
  };
  const run = () => {
    running = purgeExpired(deps, { ...options, stopped: () => stopping })
      .then((counts) => {
        if (counts.tokens + counts.refreshTokens + counts.deviceAuthorizations + counts.codes + counts.sessions > 0) deps.logger.info({ purged: counts }, 'purged expired rows');
      })
      .catch((err: unknown) => deps.logger.error({ err }, 'purging expired rows failed'))
      .finally(() => {
        running = undefined;
        if (!stopping) schedule(intervalSeconds * 1000);
      });
  };
  schedule(Math.floor(Math.random() * intervalSeconds * 1000));
  return {
    async stop() {
      stopping = true;
      cancel?.();
      await running;
    },
  };
}
