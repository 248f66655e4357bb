/**
 * `npm run test:prod`: a production install, as a deployment makes one, starts and answers. It
 * builds; meanwhile it copies what a deployment needs (package.json, package-lock.json,
 * openapi.yaml) to a temporary folder outside the repository and installs there with
 * `npm ci --omit=dev` (no devDependency, and no node_modules of the repository's within reach);
 * then it adds the build (dist/: the compiled service, its migrations, the pages' assets and
 * scripts, the SDK) and starts the compiled server with plain `node` (no TypeScript loader, as
 * `npm run start:prod` does) on a fresh database. It checks that it answers: the API, a page with
 * its stylesheet, the game SDK, the contract, the metrics listener; then that SIGTERM stops it
 * cleanly. A module the service imports but package.json lists under devDependencies (openid-client
 * was one) fails the start here.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { spawnService } from '../test/spawn-service.js';
import { freePort } from './free-port.js';

const root = path.resolve(import.meta.dirname, '..');
const started = Date.now();
const seconds = (ms: number) => (ms / 1000).toFixed(1);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'idp-prod-'));
const install = path.join(dir, 'app');
fs.mkdirSync(install);
for (const file of ['package.json', 'package-lock.json', 'openapi.yaml']) fs.copyFileSync(path.join(root, file), path.join(install, file));

// The install and the build at once: each is mostly one process on one core. The npm cache is
// preferred (a CI machine's is warm from the repository's own install); better-sqlite3 compiles
// from source against the installed Node's headers (npm_config_nodedir, as docs/development.md says).
const installing = promisify(execFile)('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline'], {
  cwd: install,
  env: { ...process.env, npm_config_nodedir: process.env.npm_config_nodedir ?? '/usr' },
  maxBuffer: 64 * 1024 * 1024,
}).then(
  () => Date.now(),
  (err: Error & { stdout?: string; stderr?: string }) => {
    process.stderr.write(`npm ci --omit=dev failed:\n${err.stdout ?? ''}${err.stderr ?? err.message}\n`);
    fs.rmSync(dir, { recursive: true, force: true });
    process.exit(1);
  },
);
execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
const built = Date.now();
const installed = await installing;
fs.cpSync(path.join(root, 'dist'), path.join(install, 'dist'), { recursive: true });
const metricsPort = await freePort();
const service = await spawnService({
  cwd: install,
  script: 'dist/src/server.js',
  readySeconds: 60,
  env: {
    METRICS_PORT: String(metricsPort),
    DATABASE_URL: path.join(dir, 'prod.sqlite'),
    PICTURES_DIR: path.join(dir, 'pictures'),
    SESSION_SECRET: 'prod-smoke-session-secret-0123456789',
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
  },
}).catch((err: unknown) => {
  process.stderr.write(`the compiled server did not start from the production install in ${install}:\n${String(err)}\n`);
  fs.rmSync(dir, { recursive: true, force: true });
  process.exit(1);
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
  // The reference page, whose Redoc bundle comes from the installed package.
  await expectStatus(`${base}/docs`, 200, '<redoc');
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
process.stdout.write(
  `production install (npm ci --omit=dev) of the compiled server started and answered in ${seconds(Date.now() - started)} s (build ${seconds(built - started)} s, install ${seconds(installed - started)} s, both at once)\n`,
);
