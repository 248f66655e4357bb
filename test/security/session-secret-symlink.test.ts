/**
 * Attack 51: the session key kept beside the SQLite file (src/security/session-secret-file.ts)
 * when something other than the key file stands at its path: a symbolic link (dangling, or to
 * another file) or a directory. Each is refused with a configuration error that names the file;
 * none gives the server an undefined key or someone else's file as its key.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { keepSessionSecret } from '../../src/security/session-secret-file.js';
import { tempDir } from '../helpers.js';

let dir: string;
beforeAll(() => {
  dir = tempDir('idp-attack51-secret-');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function configIn(name: string) {
  const data = path.join(dir, name);
  fs.mkdirSync(data, { recursive: true });
  return { data, file: path.join(data, 'session-secret'), keep: () => keepSessionSecret(loadConfig({ DATABASE_URL: path.join(data, 'service.sqlite') })) };
}

describe('attack 51: what stands at the kept session key path', () => {
  it('a dangling symbolic link is refused (the key was undefined and the start failed on "ikm")', () => {
    const { data, file, keep } = configIn('dangling');
    fs.symlinkSync(path.join(data, 'elsewhere'), file);
    expect(keep).toThrow(ConfigError);
    expect(keep).toThrow(`${file} (the session key kept while SESSION_SECRET is unset) is not a plain file`);
    expect(fs.existsSync(path.join(data, 'elsewhere'))).toBe(false);
  });

  it("a symbolic link to another owner-only file is refused, not taken as the key", () => {
    const { data, file, keep } = configIn('link-to-file');
    const other = path.join(data, 'someone-elses-key');
    fs.writeFileSync(other, 'x'.repeat(40), { mode: 0o600 });
    fs.symlinkSync(other, file);
    expect(keep).toThrow(`${file} (the session key kept while SESSION_SECRET is unset) is not a plain file`);
  });

  it('a directory is refused with the same configuration error', () => {
    const { file, keep } = configIn('directory');
    fs.mkdirSync(file);
    expect(keep).toThrow(`${file} (the session key kept while SESSION_SECRET is unset) is not a plain file`);
  });

  it('a plain owner-only file is still the key, and a missing one is made owner-only', () => {
    const { file, keep } = configIn('plain');
    const made = keep();
    expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600');
    expect(made.sessionSecret).toBe(fs.readFileSync(file, 'utf8').trim());
    expect(keep().sessionSecret).toBe(made.sessionSecret);
  });
});
