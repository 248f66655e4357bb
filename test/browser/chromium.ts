/**
 * Debian's Chromium (/usr/bin/chromium) driven by playwright-core: no downloaded browsers.
 * With CI=true a missing Chromium fails the suite; locally the browser suites skip with a notice.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { precondition } from '../preconditions.js';

const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = precondition('the browser suites', fs.existsSync(CHROMIUM_PATH), `no Chromium at ${CHROMIUM_PATH} (apt-get install chromium)`);

/** Launch flags that keep Chromium off the network it cannot reach here (docs/decisions.md#tooling-facts-the-code-relies-on). */
export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-dev-shm-usage',
    ],
  });
}

/** Screenshots land here (ignored by git), so a person can look at what the tests saw. */
export const SCREENSHOTS_DIR = path.resolve(import.meta.dirname, '..', '..', 'test-artifacts', 'screenshots');
fs.mkdirSync(SCREENSHOTS_DIR, { recursive: true });

/** A stand-in for an OAuth client's redirect_uri: a page that only says it was reached. */
export interface CallbackServer {
  /** `http://127.0.0.1:<port>/callback` */
  url: string;
  close(): void;
}

export async function startCallbackServer(): Promise<CallbackServer> {
  const server = http.createServer((_req, res) => {
    res.setHeader('Content-Type', 'text/html');
    res.end('<!doctype html><title>client callback</title><h1>client callback</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`, close: () => server.close() };
}
