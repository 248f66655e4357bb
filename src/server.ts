/** Entry point: load config, open the store, build the app, listen; close cleanly on SIGTERM/SIGINT. */
import type { Server, ServerResponse } from 'node:http';
import { upgradeRecoveryCodes } from './accounts/second-factor.js';
import { createApp } from './app.js';
import { listen } from './http/client-errors.js';
import { ConfigError, loadConfig, sessionSecretRequired, type Config } from './config.js';
import { demoInstructions, seedDemo } from './demo.js';
import { createLogger } from './log.js';
import { startMetricsListener } from './metrics/listener.js';
import { createMetrics } from './metrics/metrics.js';
import { importPictureFiles, sweepOrphanPictures } from './pictures/pictures.js';
import { keepSessionSecret } from './security/session-secret-file.js';
import { openStoreAt } from './store/open.js';
import { DEFAULT_PURGE_OPTIONS, startPurger } from './purge/purge.js';

async function main(): Promise<void> {
  let config: Config;
  try {
    config = keepSessionSecret(loadConfig());
    const missing = sessionSecretRequired(config);
    if (missing) throw missing;
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`Configuration error: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  // A person at a terminal reads lines; anything else (a collector, a pipe, a test) gets JSON.
  const logger = createLogger(config.logLevel, config.logFormat ?? (process.stdout.isTTY ? 'text' : 'json'));
  if (config.sessionSecretFile !== undefined) {
    logger.warn(
      `SESSION_SECRET is not set: using the key kept in ${config.sessionSecretFile}, which signs sessions and seals authenticator apps, upstreams' client secrets and ID token signing keys; keep it with the database (backups too)`,
    );
  } else if (config.sessionSecretGenerated) {
    logger.warn(
      "SESSION_SECRET is not set: using a random key for this process only, so sessions, authenticator apps, upstreams' client secrets and ID token signing keys made now do not survive a restart",
    );
  }
  const store = openStoreAt(config.database);
  await store.migrate();

  if (config.demoData && (await store.users.countUsers()) === 0) {
    const demo = await seedDemo(store, config);
    process.stdout.write(demoInstructions(config, demo));
  }

  const metrics = config.metricsPort === undefined ? undefined : createMetrics();
  const { koa, deps } = await createApp({ config, store, logger, metrics });
  // The ID token signing key: made at first start, then shared through the database.
  await deps.keys.signingKey();
  const upgraded = await upgradeRecoveryCodes(store);
  if (upgraded > 0) logger.info({ upgraded }, 'recovery codes re-hashed with scrypt');
  const metricsServer =
    metrics && (await startMetricsListener(metrics, config.metricsPort!, config.metricsHost, logger).catch((err: unknown) => Promise.reject(bindError(err, 'METRICS', config.metricsPort!, config.metricsHost))));
  if (metricsServer) {
    const bound = metricsServer.address();
    logger.info({ port: typeof bound === 'object' && bound ? bound.port : config.metricsPort, host: config.metricsHost }, 'metrics listening');
  }
  if (deps.pictures.kind === 'database') {
    // Pictures an earlier PICTURES_DIR holds move into PostgreSQL, once (docs/operations.md#pictures-on-postgresql).
    const moved = await importPictureFiles(deps, config.picturesDir);
    if (moved.imported > 0) logger.info({ ...moved, from: config.picturesDir }, 'imported picture files into the database');
    if (moved.missing > 0) logger.warn({ ...moved, from: config.picturesDir }, 'users whose current picture is neither in the database nor in PICTURES_DIR');
  }
  const swept = await sweepOrphanPictures(deps, config.pictureSweepAgeSeconds * 1000);
  if (swept > 0) logger.warn({ swept }, 'deleted pictures left by an interrupted change');
  const server: Server = listen(koa, config.port, config.host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', (err) => reject(bindError(err, '', config.port, config.host)));
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

  // Graceful shutdown (docs/operations.md#stopping-and-readiness): /healthz answers 503 at once,
  // the listener closes (new connections are refused), idle kept-alive connections close, and
  // every response still to come says Connection: close; requests in flight (uploads included)
  // finish, then the process exits 0. Past SHUTDOWN_TIMEOUT_SECONDS it exits 1 regardless.
  let closing = false;
  const inFlight = new Set<ServerResponse>();
  server.on('request', (_req, res: ServerResponse) => {
    if (closing) res.setHeader('Connection', 'close');
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
  });
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    deps.readiness.shuttingDown = true;
    // A kept-alive connection closes after the response in progress on it.
    for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      logger.error({ timeoutSeconds: config.shutdownTimeoutSeconds }, 'requests still in flight at SHUTDOWN_TIMEOUT_SECONDS; exiting');
      process.exit(1);
    }, config.shutdownTimeoutSeconds * 1000);
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

/**
 * A listener that cannot bind, said as the setting to change: `prefix` '' for PORT and HOST,
 * 'METRICS' for METRICS_PORT and METRICS_HOST. Other errors pass unchanged.
 */
function bindError(err: unknown, prefix: '' | 'METRICS', port: number, host: string): Error {
  const name = (variable: string) => (prefix ? `${prefix}_${variable}` : variable);
  switch ((err as NodeJS.ErrnoException).code) {
    case 'EADDRINUSE':
      return new Error(
        `${name('PORT')} ${port} is already in use on ${host}: ${prefix ? 'give each instance its own METRICS_PORT' : 'stop what listens there, or give this instance another PORT'}`,
      );
    case 'EACCES':
      return new Error(`${name('PORT')} ${port} on ${host} needs privileges this process does not have: use a port above 1023`);
    case 'EADDRNOTAVAIL':
      return new Error(`${name('HOST')} ${host} is not an address of this machine: set ${name('HOST')} to one of its addresses, or leave it unset`);
    default:
      return err instanceof Error ? err : new Error(String(err));
  }
}

/** The database kind and location, without any password a URL may carry. */
function describeDatabase(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

main().catch((err: unknown) => {
  process.stderr.write(`Failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
