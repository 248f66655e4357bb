/**
 * README "Build a game" on a service that is not at http://localhost:3000, with real processes as
 * a person runs them: the service (its own port, demo data), `npm run example:static`, a public
 * app and a game registered with the address the README gives
 * (`http://localhost:<game port>/?client_id=<app>&service=<service>`), then the play page in
 * Chromium signs the player in. Without `&service=`, the game finds the service that frames it
 * (Chromium's location.ancestorOrigins).
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/free-port.js';
import { tempDir } from '../helpers.js';
import { spawnService, type SpawnedService } from '../spawn-service.js';
import { hasChromium, launchChromium } from './chromium.js';

const root = path.resolve(import.meta.dirname, '..', '..');
const dir = tempDir();
let service: SpawnedService;
let serviceUrl: string;
let env: NodeJS.ProcessEnv;
let gamePort: number;
let staticGame: ChildProcessWithoutNullStreams | undefined;
let browser: Browser;

/** `npm run admin -- ...` against the service's database: its one JSON line. */
function admin(...args: string[]): Record<string, unknown> {
  const run = spawnSync('npm', ['run', '--silent', 'admin', '--', ...args], { cwd: root, env, encoding: 'utf8', timeout: 60_000 });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

describe.skipIf(!hasChromium)('README: Build a game, on another port', () => {
  beforeAll(async () => {
    const port = await freePort();
    serviceUrl = `http://localhost:${port}`;
    env = { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: path.join(dir, 'db.sqlite'), PICTURES_DIR: path.join(dir, 'pics'), PUBLIC_URL: serviceUrl, LOG_LEVEL: 'warn' };
    service = await spawnService({ port, env });
    gamePort = await freePort();
    staticGame = spawn('npm', ['run', 'example:static'], { cwd: root, env: { ...env, PORT: String(gamePort), SERVICE_URL: serviceUrl }, stdio: ['pipe', 'pipe', 'pipe'] });
    await new Promise<void>((resolve, reject) => {
      let out = '';
      staticGame!.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('Static example game on')) resolve();
      });
      staticGame!.once('exit', (code) => reject(new Error(`example:static exited with ${code}`)));
    });
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    if (staticGame && staticGame.exitCode === null) {
      staticGame.kill('SIGTERM');
      await new Promise((resolve) => staticGame!.once('exit', resolve));
    }
    await service?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const withService of [true, false]) {
    it(`a public app and the game at ${withService ? '?client_id=..&service=..' : '?client_id=.. alone'}: the player signs in through the play page`, async () => {
      const gameOrigin = `http://localhost:${gamePort}`;
      // Step 1 of the README, as the operator CLI does what the apps and games pages do.
      const { client_id: clientId } = admin('app', 'create', '--owner', '1', '--name', `My Game App ${withService}`, '--redirect-uri', `${gameOrigin}/`, '--public') as { client_id: string };
      const address = `${gameOrigin}/?client_id=${clientId}${withService ? `&service=${encodeURIComponent(serviceUrl)}` : ''}`;
      const { id } = admin('game', 'create', '--author', '1', '--title', `My Game ${withService}`, '--url', address) as { id: number };

      const context = await browser.newContext();
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      await page.goto(`${serviceUrl}/signin?return_to=${encodeURIComponent(`/play/${id}`)}`);
      await page.fill('input[name=name]', 'demo');
      await page.fill('input[name=password]', 'demo-password');
      await Promise.all([page.waitForURL(`${serviceUrl}/play/${id}`), page.click('main button[type=submit]')]);
      const frame = page.frameLocator('#game');
      const status = frame.locator('#status');
      await expect.poll(() => status.textContent()).toBe('You are signed in to the service. Sign the game in to play as yourself.');
      expect(await frame.locator('#client-id').inputValue()).toBe(clientId);
      await frame.getByRole('button', { name: 'Sign in with the identity service' }).click();
      await page.waitForSelector('#consent[open]');
      await page.click('#consent-authorize');
      await expect.poll(() => status.textContent()).toBe('Signed in as demo.');
      await context.close();
    }, 120_000);
  }
});
