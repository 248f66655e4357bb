/**
 * `npm run test:prod`: builds, starts the compiled server with plain `node` (no TypeScript loader,
 * as `npm run start:prod` does) on a fresh database, and checks that it answers: the API, a page
 * with its stylesheet, the game SDK, the contract, the metrics listener; then that SIGTERM stops
 * it cleanly. Proves the compiled tree finds its migrations, assets, the page scripts and the SDK (dist/bundled) and
 * openapi.yaml on its own.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnService } from '../test/spawn-service.js';
import { freePort } from './free-port.js';

const root = path.resolve(import.meta.dirname, '..');
const started = Date.now();
execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'idp-prod-'));
const metricsPort = await freePort();
const service = await spawnService({
  script: 'dist/src/server.js',
  env: {
    METRICS_PORT: String(metricsPort),
    DATABASE_URL: path.join(dir, 'prod.sqlite'),
    PICTURES_DIR: path.join(dir, 'pictures'),
    SESSION_SECRET: 'prod-smoke-session-secret-0123456789',
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
  },
});

const failures: string[] = [];
async function expectStatus(url: string, status: number, contains?: string): Promise<void> {
  const res = await fetch(url);
  const body = await res.text();
  if (res.status !== status || (contains !== undefined && !body.includes(contains))) {
    failures.push(`${url}: ${res.status} ${body.slice(0, 200)}`);
  }
}

try {
  const base = service.url;
  await expectStatus(`${base}/healthz`, 200, '"ok"');
  await expectStatus(`${base}/api/users/info?id=1`, 200, '"name":"demo"');
  await expectStatus(`${base}/signin`, 200, '<form method="post" action="/signin"');
  await expectStatus(`${base}/assets/site.css`, 200);
  // The page scripts as `npm run build` bundled them (dist/bundled/), the WebAuthn library inside.
  await expectStatus(`${base}/assets/signin.js`, 200, 'navigator.credentials.get(');
  await expectStatus(`${base}/sdk/game.js`, 200, 'async function authorize(');
  await expectStatus(`${base}/openapi.yaml`, 200, 'openapi: 3.0.3');
  await expectStatus(`http://127.0.0.1:${metricsPort}/metrics`, 200, 'idp_http_requests_total{operation="getUserInfo",status_class="2xx"} 1');
} catch (err) {
  failures.push(String(err));
}
const code = await service.stop();
if (code !== 0) failures.push(`the server exited with ${code} on SIGTERM`);
process.stderr.write(service.stderr());
fs.rmSync(dir, { recursive: true, force: true });
if (failures.length > 0) {
  process.stderr.write(`compiled server check FAILED:\n${failures.map((f) => `  ${f}`).join('\n')}\n`);
  process.exit(1);
}
process.stdout.write(`compiled server (node dist/src/server.js) built, started and answered in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
