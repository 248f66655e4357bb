/**
 * The apps page's sign-in link of a public app, followed as a developer does: the link carries the
 * S256 challenge of a verifier the page made and shows, the consent page's Authorize lands on the
 * redirect URI with a code, and the exchange command the page shows redeems it.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerOAuthApp } from '../../src/oauth/clients.js';
import { makeUser, startServer, type TestServer } from '../helpers.js';
import { expectNoAxeViolations } from './axe.js';
import { hasChromium, launchChromium, signedInPage, startCallbackServer, type CallbackServer } from './chromium.js';

let t: TestServer;
let browser: Browser;
let callback: CallbackServer;

describe.skipIf(!hasChromium)("the apps page's sign-in link", () => {
  beforeAll(async () => {
    t = await startServer();
    callback = await startCallbackServer();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    callback?.close();
    await t?.close();
  });

  it('of a public app carries a PKCE challenge; Authorize lands on the redirect URI and the shown command redeems the code', async () => {
    const owner = await makeUser(t);
    const { app } = await registerOAuthApp({ store: t.store, now: t.clock.now }, { ownerId: owner.id, name: 'Public Try App', redirectUris: [callback.url], public: true });
    const page = await signedInPage(browser, t.baseUrl, owner.name);
    await page.goto(`${t.baseUrl}/apps`);
    const card = page.locator(`section.app[data-client-id="${app.clientId}"]`);
    const link = card.locator('.flow-link');
    await expect.poll(() => link.getAttribute('href')).toContain('code_challenge=');

    const verifier = (await card.locator('.code-verifier').textContent())!;
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const href = new URL((await link.getAttribute('href'))!);
    expect(`${href.origin}${href.pathname}`).toBe(`${t.baseUrl}/oauth`);
    expect(Object.fromEntries(href.searchParams)).toEqual({
      response_type: 'code',
      client_id: app.clientId,
      redirect_uri: callback.url,
      scope: 'userinfo',
      state: 'state123',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    });
    const command = (await card.locator('.exchange-command').textContent())!;
    expect(command).toBe(
      `curl -s ${t.baseUrl}/api/oauth/token -d grant_type=authorization_code -d code=<code> -d client_id=${app.clientId} --data-urlencode redirect_uri=${callback.url} -d code_verifier=${verifier}`,
    );

    // The verifier and the command fit both widths and pass axe.
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 800 });
      await expectNoAxeViolations(page, `apps page with a public app at ${width} px`);
      expect(await page.evaluate(() => document.documentElement.scrollWidth), `${width} px`).toBeLessThanOrEqual(width);
    }
    await page.setViewportSize({ width: 1280, height: 800 });

    // The link opens in a new tab: the consent page, then the redirect URI with a code.
    const [tab] = await Promise.all([page.context().waitForEvent('page'), link.click()]);
    await tab.waitForSelector('#authorize');
    expect(await tab.textContent('#app-name')).toBe('Public Try App');
    await Promise.all([tab.waitForURL(`${callback.url}?**`), tab.click('#authorize')]);
    const back = new URL(tab.url()).searchParams;
    expect([back.get('state'), back.get('iss'), back.get('error')]).toEqual(['state123', t.config.publicUrl, null]);

    // The page's command, as shown, with the code from the address bar (asynchronously: the service answers in this process).
    const run = await promisify(execFile)('bash', ['-c', command.replace('<code>', back.get('code')!)], { encoding: 'utf8', timeout: 30_000 });
    const token = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(token).toEqual({ access_token: expect.stringMatching(/^[\w-]{43}$/), token_type: 'Bearer', expires_in: 600 });
    const whois = await fetch(`${t.baseUrl}/api/oauth/whois`, { headers: { Authorization: `Bearer ${token.access_token as string}` } });
    expect(await whois.json()).toEqual({ id: owner.id, name: owner.name });
    await page.context().close();
  });

  it('of a confidential app carries no PKCE challenge and shows no verifier', async () => {
    const owner = await makeUser(t);
    const { app } = await registerOAuthApp({ store: t.store, now: t.clock.now }, { ownerId: owner.id, name: 'Confidential Try App', redirectUris: [callback.url] });
    const page = await signedInPage(browser, t.baseUrl, owner.name);
    await page.goto(`${t.baseUrl}/apps`);
    const card = page.locator(`section.app[data-client-id="${app.clientId}"]`);
    const href = new URL((await card.locator('.flow-link').getAttribute('href'))!);
    expect([...href.searchParams.keys()]).toEqual(['response_type', 'client_id', 'redirect_uri', 'scope', 'state']);
    expect(await card.locator('.code-verifier, .exchange-command, .pkce-note').count()).toBe(0);
    await page.context().close();
  });
});
