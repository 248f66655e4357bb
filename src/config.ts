/**
 * The only reader of process.env. Every key is validated at start; a bad value stops the start
 * with one clear line (ConfigError).
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export interface Config {
  /** PORT: TCP port to listen on (default 3000; 0 picks a free port). */
  port: number;
  /** HOST: interface to bind (default 0.0.0.0, all interfaces). */
  host: string;
  /**
   * DATABASE_URL: SQLite file path, `file:<path>` or `:memory:` (default ./data/service.sqlite), or
   * `postgres://user:password@host:port/database` for PostgreSQL (needed to run several instances).
   */
  databaseUrl: string;
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
  /** PUBLIC_URL: the address clients reach the service at (default http://localhost:<PORT>). */
  publicUrl: string;
  /** DEMO_DATA: create the demo user and app on an empty database at start (default true). */
  demoData: boolean;
  /**
   * SESSION_SECRET: key that signs the session cookie, at least 32 characters. When unset a random
   * one is made at start (sessionSecretGenerated), so sessions do not survive a restart.
   */
  sessionSecret: string;
  sessionSecretGenerated: boolean;
  /**
   * PURGE_INTERVAL_SECONDS: how often each instance deletes expired codes, tokens and sessions
   * (default 300; 0 turns the background purge off, e.g. when only `admin purge` from cron runs it).
   */
  purgeIntervalSeconds: number;
  /** PURGE_BATCH_SIZE: rows per table per delete statement (default 250, 1 to 100000). */
  purgeBatchSize: number;
}

export class ConfigError extends Error {}

function parsePort(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 3000;
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535) {
    throw new ConfigError(`PORT must be an integer from 0 to 65535, got "${raw}"`);
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

function parseBatchSize(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 250;
  if (!/^\d{1,6}$/.test(raw) || Number(raw) < 1 || Number(raw) > 100_000) {
    throw new ConfigError(`PURGE_BATCH_SIZE must be an integer from 1 to 100000, got "${raw}"`);
  }
  return Number(raw);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = parsePort(env.PORT);
  const host = env.HOST || '0.0.0.0';
  const databaseUrl = env.DATABASE_URL || './data/service.sqlite';
  const picturesDir = path.resolve(env.PICTURES_DIR || './data/pictures');
  const pictureSweepAgeSeconds = parseSeconds('PICTURE_SWEEP_AGE_SECONDS', env.PICTURE_SWEEP_AGE_SECONDS, 600);
  const logLevel = (env.LOG_LEVEL || 'info').toLowerCase() as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`);
  }
  const publicUrl = parseUrl('PUBLIC_URL', env.PUBLIC_URL || `http://localhost:${port || 3000}`);
  const demoData = parseBool('DEMO_DATA', env.DEMO_DATA, true);
  const sessionSecretGenerated = env.SESSION_SECRET === undefined || env.SESSION_SECRET === '';
  const sessionSecret = sessionSecretGenerated ? randomBytes(32).toString('base64url') : String(env.SESSION_SECRET);
  if (sessionSecret.length < 32) {
    throw new ConfigError(`SESSION_SECRET must be at least 32 characters, got ${sessionSecret.length}`);
  }
  const purgeIntervalSeconds = parseSeconds('PURGE_INTERVAL_SECONDS', env.PURGE_INTERVAL_SECONDS, 300);
  const purgeBatchSize = parseBatchSize(env.PURGE_BATCH_SIZE);
  return {
    port,
    host,
    databaseUrl,
    picturesDir,
    pictureSweepAgeSeconds,
    logLevel,
    publicUrl,
    demoData,
    sessionSecret,
    sessionSecretGenerated,
    purgeIntervalSeconds,
    purgeBatchSize,
  };
}
