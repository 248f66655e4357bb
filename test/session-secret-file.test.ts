/**
 * The session key of an install without SESSION_SECRET (src/security/session-secret-file.ts), as
 * processes meet it: the server keeps it beside the SQLite file at its first start and reads it
 * at every later one, the operator CLI beside it seals with the same key, and a production start
 * without SESSION_SECRET is refused.
 */
import fs from 'node:fs';
import path from 'node:path';
import { TOTP, URI } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/admin.js';
import { Agent, tempDir, type TestServer } from './helpers.js';
import { ServiceExited, spawnService } from './spawn-service.js';
import { startUpstreamProvider, type UpstreamProvider } from './upstream-provider.js';
import { freePort } from '../scripts/free-port.js';

let dir: string;
beforeAll(() => {
  dir = tempDir('idp-session-secret-');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function jwksKids(url: string): Promise<string[]> {
  const jwks = (await (await fetch(`${url}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] };
  return jwks.keys.map((k) => k.kid);
}

async function cli(env: NodeJS.ProcessEnv, ...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { env, stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
  return { code, stdout, stderr };
}

const refusal = (env: NodeJS.ProcessEnv) =>
  spawnService({ env }).then(
    async (service) => {
      await service.stop();
      return undefined;
    },
    (err: unknown) => err,
  );

describe('SESSION_SECRET unset, on a SQLite file', () => {
  it('the first start keeps a key beside the database (owner-only), and a restart reads it: sessions, the signing key and the authenticator app still work', async () => {
    const data = path.join(dir, 'restart');
    const env = { DATABASE_URL: path.join(data, 'service.sqlite'), PICTURES_DIR: path.join(data, 'pictures') };
    const port = await freePort();
    const first = await spawnService({ env, port });
    const file = path.join(data, 'session-secret');
    const warning = JSON.parse(await first.line('SESSION_SECRET is not set')) as { level: number; msg: string };
    expect([warning.level, warning.msg]).toEqual([
      40,
      `SESSION_SECRET is not set: using the key kept in ${file}, which signs sessions and seals authenticator apps, upstreams' client secrets and ID token signing keys; keep it with the database (backups too)`,
    ]);
    expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600');
    const key = fs.readFileSync(file, 'utf8');
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}\n$/);
    expect(first.stdout()).not.toContain(key.trim());

    const agent = new Agent({ baseUrl: first.url } as TestServer);
    await agent.signIn({ name: 'demo' }, 'demo-password');
    const setup = await agent.json('POST', '/api/account/totp', { password: 'demo-password' });
    const totp = URI.parse(((await setup.json()) as { uri: string }).uri) as TOTP;
    const confirm = await agent.json('POST', '/api/account/totp/confirm', { code: totp.generate() });
    expect(confirm.status).toBe(200);
    const { recovery_codes: codes } = (await confirm.json()) as { recovery_codes: string[] };
    const kids = await jwksKids(first.url);
    expect(await first.stop()).toBe(0);

    const second = await spawnService({ env, port });
    try {
      expect(fs.readFileSync(file, 'utf8')).toBe(key);
      // The same signing key (no new one made because the old one could not be opened).
      expect(await jwksKids(second.url)).toEqual(kids);
      expect(second.stdout()).not.toContain('decrypts the signing keys');
      // The session made before the restart is still signed in.
      expect((await agent.fetch('/api/account/totp')).status).toBe(200);
      // The authenticator app's seed still opens: a code of the next step signs in (not 503).
      const again = new Agent({ baseUrl: second.url } as TestServer);
      expect((await again.form('/signin', { name: 'demo', password: 'demo-password' })).headers.get('location')).toBe('/signin/otp');
      const signedIn = await again.form('/signin/otp', { otp: totp.generate({ timestamp: Date.now() + 30_000 }) });
      expect([signedIn.status, signedIn.headers.get('location')]).toEqual([303, '/account']);
      expect(codes).toHaveLength(10);
    } finally {
      await second.stop();
    }
  }, 60_000);

  it('the operator CLI beside the server uses the same key: keys list and upstream add need no SESSION_SECRET, and the server opens what the CLI sealed', async () => {
    const data = path.join(dir, 'beside');
    const port = await freePort();
    const env = { DATABASE_URL: path.join(data, 'service.sqlite'), PICTURES_DIR: path.join(data, 'pictures'), PORT: String(port), LOG_LEVEL: 'silent' };
    let provider: UpstreamProvider | undefined;
    const service = await spawnService({ env: { ...env, LOG_LEVEL: 'info' }, port });
    try {
      provider = await startUpstreamProvider({
        clients: [{ client_id: 'beside', client_secret: 'beside-upstream-secret', redirect_uris: [`http://localhost:${port}/signin/upstream/beside-op/callback`] }],
        accounts: {},
      });
      const listed = await cli(env, 'keys', 'list');
      expect([listed.code, listed.stderr]).toEqual([0, '']);
      expect((JSON.parse(listed.stdout) as { keys: { kid: string }[] }).keys.map((k) => k.kid)).toEqual(await jwksKids(service.url));

      const added = await cli(env, 'upstream', 'add', '--name', 'Beside OP', '--issuer', provider.issuer, '--client-id', 'beside', '--client-secret', 'beside-upstream-secret');
      expect(added).toEqual({
        code: 0,
        stdout: `${JSON.stringify({ slug: 'beside-op', name: 'Beside OP', kind: 'oidc', preset: null, callback: `http://localhost:${port}/signin/upstream/beside-op/callback` })}\n`,
        stderr: '',
      });
      // The server unseals the client secret the CLI sealed: the sign-in starts (303 to the upstream), not "ask the operator" (503).
      const agent = new Agent({ baseUrl: service.url } as TestServer);
      const start = await agent.form('/signin/upstream/beside-op', {});
      expect([start.status, new URL(start.headers.get('location') ?? 'invalid:').origin]).toEqual([303, provider.issuer]);
    } finally {
      await provider?.close();
      await service.stop();
    }
  }, 60_000);

  it('refuses a kept key others can read, saying how to mend it (server and CLI alike)', async () => {
    const data = path.join(dir, 'open');
    fs.mkdirSync(data, { recursive: true });
    const file = path.join(data, 'session-secret');
    fs.writeFileSync(file, `${'k'.repeat(43)}\n`, { mode: 0o644 });
    fs.chmodSync(file, 0o644);
    const env = { DATABASE_URL: path.join(data, 'service.sqlite'), PICTURES_DIR: path.join(data, 'pictures') };
    const message = `${file} (the session key kept while SESSION_SECRET is unset) can be read by others (mode 644): chmod 600 it`;
    expect(await refusal(env)).toMatchObject({ code: 1, stdout: '', stderr: `Configuration error: ${message}\n` });
    expect(await cli({ ...env, LOG_LEVEL: 'silent' }, 'keys', 'list')).toEqual({ code: 1, stdout: '', stderr: `error: ${message}\n` });
  });
});

describe('SESSION_SECRET unset where it is needed', () => {
  it.each([
    [{ NODE_ENV: 'production' }, 'NODE_ENV=production'],
    [{ DATABASE_URL: 'postgres://idp@127.0.0.1:1/idp' }, 'a PostgreSQL DATABASE_URL'],
  ])('refuses to start with %o, in one line naming the variable and how to make one, and keeps no key', async (env, why) => {
    const data = path.join(dir, `refused-${why.length}`);
    const refused = await refusal({ DATABASE_URL: path.join(data, 'service.sqlite'), PICTURES_DIR: path.join(data, 'pictures'), ...env });
    expect(refused).toBeInstanceOf(ServiceExited);
    expect(refused).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `Configuration error: SESSION_SECRET is not set, and ${why} needs it: set it to 32+ random characters, the same on every instance (make one with: openssl rand -base64 32)\n`,
    });
    expect(fs.existsSync(path.join(data, 'session-secret'))).toBe(false);
  });
});
