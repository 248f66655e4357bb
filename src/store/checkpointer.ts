/**
 * SQLite's WAL checkpoint off the event loop. By itself the writer checkpoints once the WAL passes
 * its mark, inside the COMMIT that crosses it, which then takes many times longer, on the event
 * loop (docs/performance.md#wal-checkpoint-thread).
 * A worker thread with a connection of its own runs a PASSIVE checkpoint (which blocks neither
 * readers nor the writer) every CHECKPOINT_INTERVAL_MS, so the WAL is copied back before the
 * writer's mark is reached; the writer's mark is raised to WRITER_AUTOCHECKPOINT_PAGES while the
 * worker runs (at SQLite's default of 1,000 pages, a storm of exchanges crossed it between two of
 * the worker's rounds, and COMMITs still checkpointed on the event loop). Should the worker
 * fall behind or fail, the writer still checkpoints by itself at that mark.
 */
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Short rounds keep each one small: at 100 ms, a round during an exchange storm had megabytes to
 * copy and its bursts showed in the exchange's p99; 20 ms met the p99 target
 * (docs/performance.md#wal-checkpoint-thread). An idle round only reads the WAL index.
 */
const CHECKPOINT_INTERVAL_MS = 20;
/** The writer's own checkpoint mark while the worker runs (SQLite's default is 1,000 pages). */
export const WRITER_AUTOCHECKPOINT_PAGES = 10_000;

// Plain CommonJS for an eval'd worker: it runs the same under tsx, vitest and the compiled build.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.filename, { fileMustExist: true });
db.pragma('busy_timeout = 1000');
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Busy or gone: the writer's own checkpoint covers for this round.
  }
}, workerData.intervalMs);
parentPort.once('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

export function startCheckpointer(filename: string): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER, { eval: true, workerData: { filename, driver, intervalMs: CHECKPOINT_INTERVAL_MS } });
  // A failing worker only means the writer checkpoints by itself again.
  worker.on('error', () => {});
  worker.unref();
  return {
    async stop() {
      // Let it close its connection; a worker stuck in a statement is ended after a second.
      const exited = once(worker, 'exit');
      worker.postMessage('stop');
      const timer = setTimeout(() => void worker.terminate(), 1000);
      await exited;
      clearTimeout(timer);
    },
  };
}
