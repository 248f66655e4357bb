/**
 * `npm run example` and examples/game/serve.mjs against the real server process with demo data,
 * as docs/clients.md and the start-up banner tell.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
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

/** examples/game/serve.mjs on a free port with `env`; resolves once it prints its address. */
async function startGameBackend(extra: Record<string, string>): Promise<{ url: string; stop: () => void }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['examples/game/serve.mjs'], { cwd: root, env: { PATH: env.PATH!, PORT: String(port), ...extra }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('Example game and client on')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`serve.mjs exited with ${code}`)));
  });
  return { url: `http://localhost:${port}`, stop: () => child.kill() };
}

/** Whether a TCP connection to `host`:`port` is taken (127.0.0.2 is this machine too, but not the address 127.0.0.1 binds). */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, host, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('examples/game/serve.mjs', () => {
  it('listens on 127.0.0.1 only, unless HOST says otherwise', async () => {
    const local = await startGameBackend({ SERVICE_URL: env.PUBLIC_URL! });
    try {
      const { port } = new URL(local.url);
      expect([await accepts('127.0.0.1', Number(port)), await accepts('127.0.0.2', Number(port))]).toEqual([true, false]);
    } finally {
      local.stop();
    }
    const everywhere = await startGameBackend({ SERVICE_URL: env.PUBLIC_URL!, HOST: '0.0.0.0' });
    try {
      expect(await accepts('127.0.0.2', Number(new URL(everywhere.url).port))).toBe(true);
    } finally {
      everywhere.stop();
    }
  });

  it('the banner prints the exact command for this service, and that command reaches it', async () => {
    const banner = service!.stdout();
    expect(banner).toContain(`run \`SERVICE_URL=${env.PUBLIC_URL} node examples/game/serve.mjs\`, then open ${env.PUBLIC_URL}/play/1`);
    expect(banner).toContain(`run \`SERVICE_URL=${env.PUBLIC_URL} npm run example:static\`, then open ${env.PUBLIC_URL}/play/2`);
    const serviceUrl = /run `SERVICE_URL=(\S+) node examples\/game\/serve\.mjs`/.exec(banner)![1]!;
    const backend = await startGameBackend({ SERVICE_URL: serviceUrl });
    try {
      // A made-up code: the service itself answers, so the example talks to the right address.
      const res = await fetch(`${backend.url}/callback?code=not-a-code`);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain(`<h1>Back from the identity service</h1><pre>{\n  &#34;error&#34;: &#34;`);
    } finally {
      backend.stop();
    }
  });

  it("answers the consent page's Cancel (error=access_denied) with a page saying the person declined, and a way back", async () => {
    const backend = await startGameBackend({ SERVICE_URL: env.PUBLIC_URL! });
    try {
      const declined = await fetch(`${backend.url}/callback?error=access_denied&error_description=The+user+did+not+consent.&state=xyz&iss=${encodeURIComponent(env.PUBLIC_URL!)}`);
      expect([declined.status, declined.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
      const page = await declined.text();
      expect(page).toContain('<title>You declined</title><h1>You declined</h1>');
      expect(page).toContain('<p id="declined">You chose not to let this app use your account: it was given nothing, and nothing was shared with it.');
      expect(page).toContain(`<p><a id="back" href="/">Back to the example app</a> or <a href="${env.PUBLIC_URL}/">to the identity service</a></p>`);
      // Any other refusal says the service's reason, escaped.
      const refused = await fetch(`${backend.url}/callback?error=invalid_scope&error_description=${encodeURIComponent('No <such> scope')}&state=xyz`);
      expect(refused.status).toBe(200);
      expect(await refused.text()).toContain('<h1>Signing in did not work</h1><p id="error">The identity service answered: No &#60;such&#62; scope (invalid_scope)</p>');
    } finally {
      backend.stop();
    }
  });

  it('says plainly, with the address it tried, when the service cannot be reached', async () => {
    const nobody = `http://127.0.0.1:${await freePort()}`;
    const backend = await startGameBackend({ SERVICE_URL: nobody });
    try {
      const callback = await fetch(`${backend.url}/callback?code=abc&state=xyz`);
      expect(callback.status).toBe(502);
      expect(callback.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const page = await callback.text();
      expect(page).toContain('<h1>The identity service cannot be reached</h1>');
      expect(page).toContain(`<p id="error">Cannot reach the identity service at ${nobody}/api/oauth/token (ECONNREFUSED). Is it running there?`);
      expect(page).not.toContain('TypeError');
      const exchange = await fetch(`${backend.url}/exchange`, { method: 'POST', body: JSON.stringify({ code: 'abc' }) });
      expect(exchange.status).toBe(502);
      expect(((await exchange.json()) as { error: string }).error).toContain(`Cannot reach the identity service at ${nobody}/api/oauth/token (ECONNREFUSED)`);
    } finally {
      backend.stop();
    }
  });
});
