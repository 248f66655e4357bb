/** A page on another origin shows profile pictures and reads users/info, as a game would. */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { makeClient, makeCode, makeUser, startServer, type TestServer } from '../helpers.js';
import { hasChromium, launchChromium, SCREENSHOTS_DIR } from './chromium.js';

let t: TestServer;
let browser: Browser;
let page: http.Server;
let pageUrl: string;

describe.skipIf(!hasChromium)('in Chromium, from another origin', () => {
  beforeAll(async () => {
    t = await startServer();
    browser = await launchChromium();
    page = http.createServer((_req, res) => {
      res.setHeader('Content-Type', 'text/html');
      res.end('<!doctype html><title>game</title><body></body>');
    });
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await browser?.close();
    page?.close();
    await t?.close();
  });

  it('loads a default picture at its exact size and fetches users/info through CORS', async () => {
    const user = await makeUser(t);
    const tab = await browser.newPage();
    await tab.goto(pageUrl);
    const result = await tab.evaluate(
      async ({ base, id }) => {
        const img = new Image();
        img.src = `${base}/pfp/large/${id}.webp`;
        await img.decode();
        document.body.append(img);
        const info = (await fetch(`${base}/api/users/info?id=${id}`).then((r) => r.json())) as { user: { name: string } };
        return { width: img.naturalWidth, height: img.naturalHeight, name: info.user.name };
      },
      { base: t.baseUrl, id: user.id },
    );
    expect(result).toEqual({ width: 256, height: 256, name: user.name });
    await tab.screenshot({ path: path.join(SCREENSHOTS_DIR, 'default-picture.png') });
    await tab.close();
  });

  it("cannot read a confidential app's tokens from another origin; only the errors (x-cors: client)", async () => {
    const user = await makeUser(t);
    const client = await makeClient(t, user.id);
    const code = await makeCode(t, { userId: user.id, clientId: client.clientId });
    const tab = await browser.newPage();
    await tab.goto(pageUrl);
    const outcome = await tab.evaluate(
      async ({ base, body }) => {
        const attempt = async (form: string) => {
          try {
            const res = await fetch(`${base}/api/oauth/token`, { method: 'POST', body: form });
            return res.status;
          } catch {
            return 'blocked';
          }
        };
        return { success: await attempt(body), error: await attempt('grant_type=authorization_code&code=x') };
      },
      { base: t.baseUrl, body: `grant_type=authorization_code&code=${code}&client_id=${client.clientId}&client_secret=${client.clientSecret}` },
    );
    // The exchange itself happened (the code is used), but the page may not read its answer.
    expect(outcome).toEqual({ success: 'blocked', error: 401 });
    expect((await t.store.apps.getCode(createHash('sha256').update(code).digest('hex')))?.usedAt).not.toBeNull();
    await tab.close();
  });
});
