/**
 * The only reader of process.env. Every key is validated at start; a bad value stops the start
 * with one clear line (ConfigError).
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import proxyaddr from 'proxy-addr';
import { DEFAULT_POOL_SIZE, parseDatabaseUrl, type DatabaseLocation } from './domain/database.js';
import { PRODUCT_NAME } from './domain/product.js';
import { LIFETIMES } from './domain/lifetimes.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
export type LogFormat = 'json' | 'text';
const LOG_FORMATS: readonly LogFormat[] = ['json', 'text'];

export interface Config {
  /** PORT: TCP port to listen on (default 3000; 0 picks a free port). */
  port: number;
  /**
   * HOST: interface to bind. Default 127.0.0.1 (this machine only: the demo data's passwords are
   * public), or 0.0.0.0 (all interfaces) with NODE_ENV=production; HOST=0.0.0.0 opens a
   * development instance to the network.
   */
  host: string;
  /**
   * DATABASE_URL: SQLite file path, `file:<path>` or `:memory:` (default ./data/service.sqlite), or
   * `postgres://user:password@host:port/database` for PostgreSQL (needed to run several instances).
   * As given, for the start log and for other processes; the service reads `database`.
   */
  databaseUrl: string;
  /**
   * DATABASE_URL parsed: which dialect, and the SQLite file or the PostgreSQL URL, with
   * DATABASE_POOL_SIZE on PostgreSQL: the most connections each of the instance's two pools opens
   * (default 10, 1 to 1000; docs/performance.md#pool-size).
   */
  database: DatabaseLocation;
  /** PICTURES_DIR: where profile pictures are stored (default ./data/pictures). */
  picturesDir: string;
  /**
   * PICTURE_SWEEP_AGE_SECONDS: at start, picture files no pfpTimestamp points at (left by a crash)
   * are deleted once older than this (default 600). Keep it well above the longest picture change
   * when several instances share the picture directory; 0 is safe only for a single instance.
   */
  pictureSweepAgeSeconds: number;
  /** LOG_LEVEL: pino level, one of fatal error warn info debug trace silent (default info). */
  logLevel: LogLevel;
  /**
   * LOG_FORMAT: `json` (one JSON object a line, for a log collector) or `text` (a line a person
   * reads). Unset: text when stdout is a terminal (`npm start` in a shell), else JSON (src/server.ts).
   */
  logFormat: LogFormat | undefined;
  /** PUBLIC_URL: the address clients reach the service at (default http://localhost:<PORT>). */
  publicUrl: string;
  /** DEMO_DATA: create the demo user and app on an empty database at start (default true). */
  demoData: boolean;
  /**
   * NODE_ENV: `production` means a real deployment: the server refuses to start without
   * SESSION_SECRET, and HOST defaults to all interfaces. Any other value, or unset, is development.
   */
  production: boolean;
  /**
   * SESSION_SECRET: key that signs the session cookie and seals the secrets the service reads back
   * (authenticator app seeds, upstreams' client secrets, ID token signing keys), at least 32
   * characters. Several comma-separated keys rotate a key: the first signs, every one verifies
   * (sessionSecrets); sessionSecret is the first. When unset, loadConfig makes a random one
   * (sessionSecretGenerated) and names sessionSecretFile, where the server and the CLI keep one
   * instead (src/security/session-secret-file.ts); in production, or on PostgreSQL, the server
   * refuses to start without it.
   */
  sessionSecret: string;
  sessionSecrets: string[];
  sessionSecretGenerated: boolean;
  /**
   * Where the key is kept when SESSION_SECRET is unset: `session-secret` beside the SQLite file,
   * made once, owner-only. Undefined when SESSION_SECRET is set, in production, on PostgreSQL (each
   * needs SESSION_SECRET) and for `:memory:` (nothing outlives the process anyway).
   */
  sessionSecretFile: string | undefined;
  /**
   * SMTP_URL: `smtp://` or `smtps://` URL of the mail server, credentials in it
   * (`smtp://user:password@host:587`); STARTTLS is used when the server offers it. Unset: every
   * message is written as an .eml file to outboxDir and its link logged (development only).
   */
  smtpUrl: string | undefined;
  /** MAIL_FROM: the From of every message (default `Identity <no-reply@<PUBLIC_URL host>>`). */
  mailFrom: string;
  /** OUTBOX_DIR: where messages go without SMTP_URL (default `outbox/` beside the SQLite file, else ./data/outbox). */
  outboxDir: string;
  /**
   * SHUTDOWN_TIMEOUT_SECONDS: on SIGTERM, how long requests in flight may take to finish before
   * the process exits anyway (default 10, at least 1).
   */
  shutdownTimeoutSeconds: number;
  /** SMTP_TIMEOUT_SECONDS: longest wait to connect to, greet or hear from the mail server (default 10). */
  smtpTimeoutSeconds: number;
  /**
   * TRUST_PROXY: which peers are trusted reverse proxies (default off: X-Forwarded-* headers are
   * ignored). A hop count (`1`: the peer is the one proxy) or a comma-separated list of addresses
   * and CIDRs (`10.0.0.0/8, 127.0.0.1`; proxy-addr's names `loopback`, `linklocal`, `uniquelocal`).
   */
  trustProxy: TrustProxy;
  /** METRICS_PORT: port of the separate Prometheus listener (default unset: no metrics). */
  metricsPort: number | undefined;
  /** METRICS_HOST: interface the metrics listener binds (default 127.0.0.1, this machine only). */
  metricsHost: string;
  /**
   * PURGE_INTERVAL_SECONDS: how often each instance deletes expired codes, tokens and sessions
   * (default 300; 0 turns the background purge off, e.g. when only `admin purge` from cron runs it).
   */
  purgeIntervalSeconds: number;
  /** PURGE_BATCH_SIZE: rows per table per delete statement (default 250, 1 to 100000). */
  purgeBatchSize: number;
  /**
   * REFRESH_TOKEN_IDLE_SECONDS: a refresh token unused this long dies (default 1209600, 14 days;
   * at least 60). Each refresh starts the idle time again, never past the absolute lifetime.
   */
  refreshTokenIdleSeconds: number;
  /**
   * REFRESH_TOKEN_ABSOLUTE_SECONDS: how long a sign-in's refresh tokens may be renewed at all,
   * from the sign-in's first code exchange (default 7776000, 90 days; at least 60).
   */
  refreshTokenAbsoluteSeconds: number;
}

/** false, a number of proxy hops to trust, or the trusted proxy addresses/CIDRs. */
export type TrustProxy = false | number | string[];

export class ConfigError extends Error {}

function parsePort(raw: string | undefined, name = 'PORT'): number {
  if (raw === undefined || raw === '') return 3000;
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535) {
    throw new ConfigError(`${name} must be an integer from 0 to 65535, got "${raw}"`);
  }
  return Number(raw);
}

function parseBool(name: string, raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function parseUrl(name: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${name} must be an absolute http(s) URL, got "${raw}"`);
  }
  return url.origin + url.pathname.replace(/\/+$/, '');
}

function parseSeconds(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d{1,9}$/.test(raw)) throw new ConfigError(`${name} must be a whole number of seconds, got "${raw}"`);
  return Number(raw);
}

function parseSmtpUrl(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // The value may hold a password: never echo it.
    throw new ConfigError('SMTP_URL must be an smtp:// or smtps:// URL');
  }
  if ((url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || url.hostname === '') {
    throw new ConfigError(`SMTP_URL must be an smtp:// or smtps:// URL with a host, got a ${url.protocol} URL`);
  }
  return raw;
}

function parseMailFrom(raw: string | undefined, publicUrl: string): string {
  if (raw === undefined || raw === '') return `${PRODUCT_NAME} <no-reply@${new URL(publicUrl).hostname}>`;
  // An address, optionally with a display name: `a@b.example` or `Name <a@b.example>`.
  if (!/^([^<>\r\n]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/.test(raw.trim())) {
    throw new ConfigError(`MAIL_FROM must be an address or "Name <address>", got "${raw}"`);
  }
  return raw.trim();
}

/** Data beside the SQLite file when there is one (like the database itself), else under ./data. */
function dataPath(database: DatabaseLocation, name: string): string {
  if (database.dialect === 'postgres' || database.file === ':memory:') return path.resolve('data', name);
  return path.join(path.dirname(path.resolve(database.file)), name);
}

function parseTrustProxy(raw: string | undefined): TrustProxy {
  if (raw === undefined || /^\s*(|0|false|off|no)\s*$/i.test(raw)) return false;
  if (/^\s*\d{1,3}\s*$/.test(raw)) return Number(raw);
  if (/^\s*(true|yes|on)\s*$/i.test(raw)) {
    // Trusting every peer would let any client choose its own address (and rate-limit budget).
    throw new ConfigError('TRUST_PROXY must be a hop count or a list of proxy addresses/CIDRs, not "true"');
  }
  const list = raw.split(',').map((s) => s.trim()).filter((s) => s !== '');
  try {
    proxyaddr.compile(list);
  } catch (err) {
    throw new ConfigError(`TRUST_PROXY must be a hop count or a comma-separated list of addresses/CIDRs: ${(err as Error).message}`);
  }
  return list;
}

/**
 * Why this configuration cannot serve without SESSION_SECRET, when it cannot: in production, or
 * with instances sharing PostgreSQL, a random or file-kept key would differ between instances and
 * deployments. The server checks it at start; the CLI's commands that seal ask for it themselves.
 */
export function sessionSecretRequired(config: Pick<Config, 'sessionSecretGenerated' | 'production' | 'database'>): ConfigError | undefined {
  if (!config.sessionSecretGenerated) return undefined;
  const why = config.production ? 'NODE_ENV=production' : config.database.dialect === 'postgres' ? 'a PostgreSQL DATABASE_URL' : undefined;
  if (why === undefined) return undefined;
  return new ConfigError(
    `SESSION_SECRET is not set, and ${why} needs it: set it to 32+ random characters, the same on every instance (make one with: openssl rand -base64 32)`,
  );
}

function parseSessionSecrets(raw: string | undefined): { secrets: string[]; generated: boolean } {
  if (raw === undefined || raw === '') return { secrets: [randomBytes(32).toString('base64url')], generated: true };
  const secrets = raw.split(',').map((s) => s.trim());
  secrets.forEach((secret, i) => {
    if (secret.length < 32) {
      const which = secrets.length > 1 ? ` (key ${i + 1} of ${secrets.length})` : '';
      throw new ConfigError(`SESSION_SECRET must be at least 32 characters${which}, got ${secret.length}`);
    }
  });
  return { secrets, generated: false };
}

function parsePoolSize(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_POOL_SIZE;
  if (!/^\d{1,4}$/.test(raw) || Number(raw) < 1 || Number(raw) > 1000) {
    throw new ConfigError(`DATABASE_POOL_SIZE must be an integer from 1 to 1000, got "${raw}"`);
  }
  return Number(raw);
}

function parseBatchSize(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 250;
  if (!/^\d{1,6}$/.test(raw) || Number(raw) < 1 || Number(raw) > 100_000) {
    throw new ConfigError(`PURGE_BATCH_SIZE must be an integer from 1 to 100000, got "${raw}"`);
  }
  return Number(raw);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const production = env.NODE_ENV === 'production';
  const port = parsePort(env.PORT);
  const host = env.HOST || (production ? '0.0.0.0' : '127.0.0.1');
  const databaseUrl = env.DATABASE_URL || './data/service.sqlite';
  const parsed = parseDatabaseUrl(databaseUrl);
  const poolSize = parsePoolSize(env.DATABASE_POOL_SIZE);
  const database: DatabaseLocation = parsed.dialect === 'postgres' ? { ...parsed, poolSize } : parsed;
  const picturesDir = path.resolve(env.PICTURES_DIR || './data/pictures');
  const pictureSweepAgeSeconds = parseSeconds('PICTURE_SWEEP_AGE_SECONDS', env.PICTURE_SWEEP_AGE_SECONDS, 600);
  const logLevel = (env.LOG_LEVEL || 'info').toLowerCase() as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`);
  }
  const logFormat = env.LOG_FORMAT ? (env.LOG_FORMAT.toLowerCase() as LogFormat) : undefined;
  if (logFormat !== undefined && !LOG_FORMATS.includes(logFormat)) {
    throw new ConfigError(`LOG_FORMAT must be json or text, got "${env.LOG_FORMAT}"`);
  }
  const publicUrl = parseUrl('PUBLIC_URL', env.PUBLIC_URL || `http://localhost:${port || 3000}`);
  const demoData = parseBool('DEMO_DATA', env.DEMO_DATA, true);
  const { secrets: sessionSecrets, generated: sessionSecretGenerated } = parseSessionSecrets(env.SESSION_SECRET);
  const keepsSessionSecret = sessionSecretGenerated && !production && database.dialect === 'sqlite' && database.file !== ':memory:';
  const trustProxy = parseTrustProxy(env.TRUST_PROXY);
  const metricsPort = env.METRICS_PORT === undefined || env.METRICS_PORT === '' ? undefined : parsePort(env.METRICS_PORT, 'METRICS_PORT');
  if (metricsPort !== undefined && metricsPort !== 0 && metricsPort === port) {
    throw new ConfigError(`METRICS_PORT must differ from PORT (${port}): metrics are never served on the public port`);
  }
  const smtpUrl = parseSmtpUrl(env.SMTP_URL);
  const mailFrom = parseMailFrom(env.MAIL_FROM, publicUrl);
  const outboxDir = env.OUTBOX_DIR ? path.resolve(env.OUTBOX_DIR) : dataPath(database, 'outbox');
  const smtpTimeoutSeconds = parseSeconds('SMTP_TIMEOUT_SECONDS', env.SMTP_TIMEOUT_SECONDS, 10);
  if (smtpTimeoutSeconds === 0) throw new ConfigError('SMTP_TIMEOUT_SECONDS must be at least 1');
  const shutdownTimeoutSeconds = parseSeconds('SHUTDOWN_TIMEOUT_SECONDS', env.SHUTDOWN_TIMEOUT_SECONDS, 10);
  if (shutdownTimeoutSeconds === 0) throw new ConfigError('SHUTDOWN_TIMEOUT_SECONDS must be at least 1');
  const metricsHost = env.METRICS_HOST || '127.0.0.1';
  const purgeIntervalSeconds = parseSeconds('PURGE_INTERVAL_SECONDS', env.PURGE_INTERVAL_SECONDS, 300);
  const purgeBatchSize = parseBatchSize(env.PURGE_BATCH_SIZE);
  const refreshTokenIdleSeconds = parseSeconds('REFRESH_TOKEN_IDLE_SECONDS', env.REFRESH_TOKEN_IDLE_SECONDS, LIFETIMES.refreshTokenIdle / 1000);
  const refreshTokenAbsoluteSeconds = parseSeconds('REFRESH_TOKEN_ABSOLUTE_SECONDS', env.REFRESH_TOKEN_ABSOLUTE_SECONDS, LIFETIMES.refreshTokenAbsolute / 1000);
  if (refreshTokenIdleSeconds < 60) throw new ConfigError('REFRESH_TOKEN_IDLE_SECONDS must be at least 60');
  if (refreshTokenAbsoluteSeconds < 60) throw new ConfigError('REFRESH_TOKEN_ABSOLUTE_SECONDS must be at least 60');
  return {
    port,
    host,
    databaseUrl,
    database,
    picturesDir,
    pictureSweepAgeSeconds,
    logLevel,
    logFormat,
    publicUrl,
    demoData,
    sessionSecret: sessionSecrets[0]!,
    sessionSecrets,
    sessionSecretGenerated,
    sessionSecretFile: keepsSessionSecret ? dataPath(database, 'session-secret') : undefined,
    production,
    smtpUrl,
    mailFrom,
    outboxDir,
    smtpTimeoutSeconds,
    shutdownTimeoutSeconds,
    trustProxy,
    metricsPort,
    metricsHost,
    purgeIntervalSeconds,
    purgeBatchSize,
    refreshTokenIdleSeconds,
    refreshTokenAbsoluteSeconds,
  };
}
