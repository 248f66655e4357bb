/**
 * `npm run example:device` (scripts/example-device.ts) against the real server process with demo
 * data, as the start-up banner and docs/clients.md tell: the command-line game prints a code, the
 * demo user approves (or denies) it on /device in Chromium, and the game prints the profile and
 * exits 0 (or says why not on stderr and exits 1). Real seconds: the game polls every 5. The demo
 * user signs in once, before the runs, so the approval is quick enough for the game's first poll.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../scripts/free-port.js';
import { DEMO } from '../src/demo.js';
import { hasChromium, launchChromium } from './browser/chromium.js';
import { tempDir } from './helpers.js';
import { spawnCollected, spawnService, type SpawnedService } from './spawn-service.js';

const root = path.resolve(import.meta.dirname, '..');
const dir = tempDir();
let env: Record<string, string>;
let publicUrl: string;
let service: SpawnedService | undefined;
let browser: Browser | undefined;
let demo: BrowserContext | undefined;
const started = new Set<ChildProcess>();

interface ExampleRun {
  stdout(): string;
  stderr(): string;
  /** The first match of `pattern` in stdout, once it is printed (waits up to 30 s). */
  match(pattern: RegExp): Promise<RegExpExecArray>;
  /** The exit code, once the output is read to its end. */
  exited: Promise<number | null>;
}

/** `npm run --silent example:device` in its own process group (so a failed test can end all of it). */
function runExample(args: string[] = [], extraEnv: Record<string, string> = {}): ExampleRun {
  const run = spawnCollected('npm', ['run', '--silent', 'example:device', ...(args.length ? ['--', ...args] : [])], {
    cwd: root,
    env: { ...env, ...extraEnv },
    detached: true,
  });
  started.add(run.child);
  void run.exited.then(() => started.delete(run.child));
  return {
    stdout: run.stdout,
    stderr: run.stderr,
    async match(pattern) {
      const end = Date.now() + 30_000;
      for (;;) {
        const found = pattern.exec(run.stdout());
        if (found) return found;
        if (run.gone() || Date.now() > end) throw new Error(`example:device did not print ${pattern}:\n${run.stdout()}\n${run.stderr()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    exited: run.ended,
  };
}

/** The code and the two addresses the game prints. */
async function codeOf(run: ExampleRun): Promise<{ userCode: string; complete: string }> {
  const [, uri, userCode] = await run.match(/^To sign in, open (\S+) and enter the code ([A-Z]{4}-[A-Z]{4})$/m);
  expect(uri).toBe(`${publicUrl}/device`);
  const [, complete] = await run.match(/^Or open (\S+)$/m);
  expect(complete).toBe(`${publicUrl}/device?user_code=${userCode}`);
  await run.match(/^Waiting for you to approve\.\.\.$/m);
  return { userCode: userCode!, complete: complete! };
}

/** A browser context signed in as the demo user. */
async function signInDemo(): Promise<BrowserContext> {
  const page = await (await browser!.newContext()).newPage();
  page.setDefaultTimeout(15_000);
  await page.goto(`${publicUrl}/signin`);
  await page.fill('input[name=name]', DEMO.user.name);
  await page.fill('input[name=password]', DEMO.user.password);
  await Promise.all([page.waitForURL(`${publicUrl}/account`), page.click('main button[type=submit]')]);
  await page.close();
  return page.context();
}

/** A page of the demo user's browser, on the device's verification_uri_complete, past the code. */
async function deviceFor(complete: string, userCode: string): Promise<Page> {
  const page = await demo!.newPage();
  page.setDefaultTimeout(15_000);
  await page.goto(complete);
  expect(await page.inputValue('#user-code')).toBe(userCode);
  await page.click('#device-continue');
  expect(await page.textContent('#device-app-name')).toBe(DEMO.deviceApp.name);
  return page;
}

describe.skipIf(!hasChromium)('npm run example:device', () => {
  beforeAll(async () => {
    const port = await freePort();
    // localhost, not 127.0.0.1: the address the browser signs in at is the one the game prints.
    publicUrl = `http://localhost:${port}`;
    env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PORT: String(port),
      PUBLIC_URL: publicUrl,
      DATABASE_URL: path.join(dir, 'db.sqlite'),
      PICTURES_DIR: path.join(dir, 'pictures'),
      LOG_LEVEL: 'warn',
    };
    [service, browser] = await Promise.all([spawnService({ port, env }), launchChromium()]);
    demo = await signInDemo();
  }, 120_000);
  afterAll(async () => {
    for (const child of started) process.kill(-child.pid!, 'SIGKILL');
    await browser?.close();
    await service?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the banner names the command and the device app', () => {
    expect(service!.stdout()).toContain(`app       client_id demo_tv_game, public, for devices without a browser: run \`PUBLIC_URL=${publicUrl} npm run example:device\` and enter its code at ${publicUrl}/device`);
  });

  it('prints the code and where to enter it; approved on /device, it prints the player\'s profile and exits 0', async () => {
    const run = runExample();
    const { userCode, complete } = await codeOf(run);
    const page = await deviceFor(complete, userCode);
    await page.click('#device-approve');
    await page.waitForSelector('#device-result');
    await page.close();

    expect(await run.exited).toBe(0);
    expect(run.stderr()).toBe('');
    const lines = run.stdout().split('\n');
    expect(lines.slice(0, 4)).toEqual([`Service: ${publicUrl} (app demo_tv_game)`, `To sign in, open ${publicUrl}/device and enter the code ${userCode}`, `Or open ${complete}`, 'Waiting for you to approve...']);
    expect(lines[4]).toBe('whois: {"id":1,"name":"demo"}');
    expect(lines[5]).toMatch(/^users\/info: \{"name":"demo","bio":"The demo account of a fresh install\.","pfpTimestamp":\d{13}\}$/);
    expect(lines.slice(6)).toEqual(['Signed in as demo', '']);
  }, 90_000);

  it('denied on /device: says so on stderr and exits 1', async () => {
    const run = runExample();
    const { userCode, complete } = await codeOf(run);
    const page = await deviceFor(complete, userCode);
    await page.click('#device-deny');
    await page.waitForSelector('#device-result');
    await page.close();

    expect(await run.exited).toBe(1);
    expect(run.stderr()).toBe('Not signed in: The person denied this device\n');
    expect(run.stdout()).not.toContain('Signed in as');
  }, 90_000);

  it("--client-id of an app without the device grant (the demo's public game app): the service's refusal on stderr, exit 1", async () => {
    const run = runExample(['--client-id', DEMO.publicApp.clientId]);
    expect(await run.exited).toBe(1);
    expect(run.stdout()).toBe(`Service: ${publicUrl} (app ${DEMO.publicApp.clientId})\n`);
    expect(run.stderr()).toBe('error: 400 This app may not use the device flow: its grant_types lack urn:ietf:params:oauth:grant-type:device_code\n');
  }, 60_000);

  it('says what is wrong when no server answers', async () => {
    const run = runExample([], { PUBLIC_URL: 'http://127.0.0.1:9' });
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toBe('error: no server answers at http://127.0.0.1:9: start it with `npm start` (same PUBLIC_URL)\n');
  }, 60_000);
});
