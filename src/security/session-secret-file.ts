/**
 * The key of an install without SESSION_SECRET (docs/configuration.md): made once and kept in the
 * data folder (`session-secret` beside the SQLite file, owner-only), so what it seals (authenticator
 * app seeds, upstreams' client secrets, ID token signing keys) and the sessions it signs outlive a
 * restart. The server and the operator CLI both read it through here, so a command run beside
 * `npm start` seals with the server's key; whichever starts first makes it.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, type Config } from '../config.js';

/** What SESSION_SECRET asks of each key. */
const SHORTEST = 32;

/**
 * `config` with the kept key in place of loadConfig's random one, when config.sessionSecretFile
 * names where it is kept (SESSION_SECRET unset, a SQLite file, not production); else `config`.
 */
export function keepSessionSecret(config: Config): Config {
  if (config.sessionSecretFile === undefined) return config;
  const key = readOrMake(config.sessionSecretFile);
  return { ...config, sessionSecret: key, sessionSecrets: [key], sessionSecretGenerated: false };
}

function readOrMake(file: string): string {
  const kept = read(file);
  if (kept !== undefined) return kept;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // Written whole under another name, then linked into place: a server and a CLI starting together
  // never read a half-written key, and the one that loses the race reads the winner's.
  const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  fs.writeFileSync(draft, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    fs.linkSync(draft, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    fs.rmSync(draft, { force: true });
  }
  return read(file)!;
}

function read(file: string): string | undefined {
  let text: string;
  try {
    const mode = fs.statSync(file).mode;
    // As ssh does with a private key: a key others can read is a key others may have copied.
    if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
      throw new ConfigError(`${file} (the session key kept while SESSION_SECRET is unset) can be read by others (mode ${(mode & 0o777).toString(8)}): chmod 600 it`);
    }
    text = fs.readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  if (text.length < SHORTEST || /\s|,/.test(text)) {
    throw new ConfigError(`${file} (the session key kept while SESSION_SECRET is unset) must hold one key of at least ${SHORTEST} characters: restore it from a backup, or set SESSION_SECRET`);
  }
  return text;
}
