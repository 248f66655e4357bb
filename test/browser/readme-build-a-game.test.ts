/**
 * README "Build a game" on a service that is not at http://localhost:3000, with real processes as
 * a person runs them: the service (its own port, demo data), `npm run example:static`, a public
 * app and a game registered with the address the README gives
 * (`http://localhost:<game port>/?client_id=<app>&service=<service>`), then the play page in
 * Chromium signs the player in. Without `&service=`, the game finds the service that frames it
 * (Chromium's location.ancestorOrigins). The redirect URI is the one README step 1 names, and the
 * game flow works whatever it is; the game opened on its own names the service it was served for.
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

  /** README step 1 to the end, as the operator CLI does what the apps and games pages do: the player signs in through the play page. */
  async function signsIn(label: string, redirectUri: string, withService: boolean): Promise<void> {
    const gameOrigin = `http://localhost:${gamePort}`;
    const { client_id: clientId } = admin('app', 'create', '--owner', '1', '--name', `My Game App ${label}`, '--redirect-uri', redirectUri, '--public') as { client_id: string };
    const address = `${gameOrigin}/?client_id=${clientId}${withService ? `&service=${encodeURIComponent(serviceUrl)}` : ''}`;
    const { id } = admin('game', 'create', '--author', '1', '--title', `My Game ${label}`, '--url', address) as { id: number };

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
  }

  /** README's "Build a game" section. */
  const section = (): string => {
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    return readme.slice(readme.indexOf('## Build a game'), readme.indexOf('\n## ', readme.indexOf('## Build a game')));
  };

  for (const withService of [true, false]) {
    it(`a public app and the game at ${withService ? '?client_id=..&service=..' : '?client_id=.. alone'}: the player signs in through the play page`, async () => {
      // The redirect URI README step 1 says to register, for the example game on its port.
      const named = /as its redirect URI \(`(http:\/\/localhost:8081\/)` for the example below\)/.exec(section().replace(/\s+/g, ' '));
      expect(named?.[1]).toBe('http://localhost:8081/');
      await signsIn(String(withService), named![1]!.replace('8081', String(gamePort)), withService);
    }, 120_000);
  }

  it('the game flow does not use the redirect URI, as README step 1 says: an app whose redirect URI nothing serves signs the player in', async () => {
    expect(section().replace(/\s+/g, ' ')).toContain('The game flow does not use the redirect URI: the play page hands the code to the game with `postMessage`, never by a redirect.');
    await signsIn('unused redirect', `http://localhost:${await freePort()}/nothing-here`, true);
  }, 120_000);

  it("the static example opened on its own, outside /play, names the service address example:static was given (SERVICE_URL)", async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`http://localhost:${gamePort}/`);
      await expect.poll(() => page.textContent('#status')).toBe(`Open this game from the service’s games page (${serviceUrl}/games): it signs in through the page around it.`);
    } finally {
      await page.close();
    }
  });
});
