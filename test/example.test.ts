/** `npm run example` against the real server process with demo data, as docs/clients.md tells. */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../scripts/free-port.js';
import { tempDir } from './helpers.js';
import { spawnService, type SpawnedService } from './spawn-service.js';

const root = path.resolve(import.meta.dirname, '..');
const dir = tempDir();
let env: Record<string, string>;
let service: SpawnedService | undefined;

beforeAll(async () => {
  const port = await freePort();
  env = {
    PATH: process.env.PATH ?? '',
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATABASE_URL: path.join(dir, 'db.sqlite'),
    PICTURES_DIR: path.join(dir, 'pictures'),
    LOG_LEVEL: 'info',
  };
  service = await spawnService({ port, env });
});
afterAll(async () => {
  await service?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('npm run example', () => {
  it('goes code -> token -> whois -> users/info -> medium picture and prints each step', () => {
    const out = path.join(dir, 'medium.webp');
    const run = spawnSync('npm', ['run', '--silent', 'example', '--', '--out', out], { cwd: root, env, encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).not.toMatch(/^error:/m);
    expect(run.status).toBe(0);
    const lines = run.stdout;
    expect(lines).toContain(`/oauth?response_type=code&client_id=demo_client`);
    expect(lines).toMatch(/^1\. Authorization code/m);
    expect(lines).toMatch(/^2\. POST \/api\/oauth\/token ->\n {3}\{"access_token":"[^"]+","token_type":"Bearer","expires_in":600\}/m);
    expect(lines).toMatch(/^3\. GET \/api\/oauth\/whois ->\n {3}\{"id":1,"name":"demo","pfpTimestamp":\d+,"email":"demo@example.com"\}/m);
    expect(lines).toMatch(/^4\. GET \/api\/users\/info\?id=1 ->/m);
    expect(lines).toMatch(new RegExp(`^5\\. GET ${env.PUBLIC_URL}/pfp/medium/1-\\d+\\.webp -> webp 64x64, \\d+ bytes, saved to ${out}`, 'm'));
    expect(lines).toMatch(/^6\. POST \/api\/oauth\/introspect -> \(exp and iat in seconds\)\n {3}\{"active":true,"scope":"userinfo email","client_id":"demo_client","token_type":"Bearer","exp":\d{10},"iat":\d{10},"sub":"1","username":"demo"\}/m);
    expect(lines).toMatch(/^7\. POST \/api\/oauth\/revoke -> 200; whois now answers 401 Access token has been revoked$/m);
  });

  it('says what is wrong when no server answers', () => {
    const run = spawnSync('npm', ['run', '--silent', 'example'], {
      cwd: root,
      env: { ...env, PUBLIC_URL: 'http://127.0.0.1:9' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('error: no server answers at http://127.0.0.1:9');
  });
});
