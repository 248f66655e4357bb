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
  const made = read(file);
  // Only a key removed between the link and this read gets here.
  if (made === undefined) throw new ConfigError(`${file} (the session key kept while SESSION_SECRET is unset) vanished as it was made: start again`);
  return made;
}

function read(file: string): string | undefined {
  const what = `${file} (the session key kept while SESSION_SECRET is unset)`;
  let text: string;
  try {
    // Not followed: a symbolic link (dangling, or to a file that is not this install's key) or a
    // directory planted at the path is refused, never read as the key nor written through.
    const stat = fs.lstatSync(file);
    if (!stat.isFile()) throw new ConfigError(`${what} is not a plain file: remove it (the server makes a new key) or restore the key file, or set SESSION_SECRET`);
    // As ssh does with a private key: a key others can read is a key others may have copied.
    if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0) {
      throw new ConfigError(`${what} can be read by others (mode ${(stat.mode & 0o777).toString(8)}): chmod 600 it`);
    }
    const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
    try {
      text = fs.readFileSync(fd, 'utf8').trim();
    } finally {
      fs.closeSync(fd);
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw new ConfigError(`${what} is not a plain file: remove it (the server makes a new key) or restore the key file, or set SESSION_SECRET`);
    throw err;
  }
  if (text.length < SHORTEST || /\s|,/.test(text)) {
    throw new ConfigError(`${what} must hold one key of at least ${SHORTEST} characters: restore it from a backup, or set SESSION_SECRET`);
  }
  return text;
}
