/** Entry point: load config, open the store, build the app, listen; close cleanly on SIGTERM/SIGINT. */
import type { Server } from 'node:http';
import { createApp } from './http/app.js';
import { listen } from './http/client-errors.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { demoInstructions, seedDemo } from './demo.js';
import { createLogger } from './log.js';
import { startMetricsListener } from './metrics/listener.js';
import { createMetrics } from './metrics/metrics.js';
import { sweepOrphanFiles } from './pictures/pictures.js';
import { openStoreAt } from './store/open.js';
import { DEFAULT_PURGE_OPTIONS, startPurger } from './purge/purge.js';

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`Configuration error: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger(config.logLevel);
  if (config.sessionSecretGenerated) {
    logger.warn('SESSION_SECRET is not set: using a random key, so sessions will not survive a restart and ID tokens get a new signing key at every start');
  }
  const store = openStoreAt(config.database);
  await store.migrate();

  if (config.demoData && (await store.countUsers()) === 0) {
    const demo = await seedDemo(store, config);
    process.stdout.write(demoInstructions(config, demo));
  }

  const metrics = config.metricsPort === undefined ? undefined : createMetrics();
  const { koa, deps } = await createApp({ config, store, logger, metrics });
  // The ID token signing key: made at first start, then shared through the database.
  await deps.keys.signingKey();
  const metricsServer = metrics && (await startMetricsListener(metrics, config.metricsPort!, config.metricsHost, logger));
  if (metricsServer) {
    const bound = metricsServer.address();
    logger.info({ port: typeof bound === 'object' && bound ? bound.port : config.metricsPort, host: config.metricsHost }, 'metrics listening');
  }
  const swept = await sweepOrphanFiles(deps, config.pictureSweepAgeSeconds * 1000);
  if (swept > 0) logger.warn({ swept }, 'deleted picture files left by an interrupted change');
  const server: Server = listen(koa, config.port, config.host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info({ port, host: config.host, database: describeDatabase(config.databaseUrl) }, 'listening');
  // Said at every start, so nobody waits for mail that is only written to a folder.
  if (deps.mailer.mode === 'outbox') {
    process.stdout.write(`\nMail: ${deps.mailer.describe()} (set SMTP_URL to send real mail)\n\n`);
    logger.warn(deps.mailer.describe());
  } else {
    logger.info(deps.mailer.describe());
  }
  const purger = startPurger({ store, now: deps.now, logger }, config.purgeIntervalSeconds, {
    ...DEFAULT_PURGE_OPTIONS,
    batchSize: config.purgeBatchSize,
  });

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      logger.error('shutdown took longer than 10 s; exiting');
      process.exit(1);
    }, 10_000);
    force.unref();
    server.close(() => {
      purger
        .stop()
        .then(() => deps.mailer.idle())
        .then(() => store.close())
        .then(() => process.exit(0))
        .catch((err: unknown) => {
          logger.error({ err }, 'closing the database failed');
          process.exit(1);
        });
    });
    server.closeIdleConnections();
    metricsServer?.close();
    metricsServer?.closeAllConnections();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

/** The database kind and location, without any password a URL may carry. */
function describeDatabase(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

main().catch((err: unknown) => {
  process.stderr.write(`Failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
