/**
 * GET /docs in Chromium: Redoc renders every operation of the contract from what this service
 * serves, and the page asks no other host for anything (it must work without internet).
 */
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers.js';
import { expectNoAxeViolations } from './axe.js';
import { hasChromium, launchChromium, SCREENSHOTS_DIR } from './chromium.js';

interface Contract {
  tags?: { name: string; 'x-displayName'?: string }[];
  paths: Record<string, Record<string, { operationId: string; summary: string; tags?: string[] }>>;
}
const contract = yaml.load(fs.readFileSync(path.resolve(import.meta.dirname, '../../openapi.yaml'), 'utf8')) as Contract;
const operations = Object.values(contract.paths).flatMap((methods) => Object.values(methods));

let t: TestServer;
let browser: Browser;

describe.skipIf(!hasChromium)('the API reference page in Chromium', () => {
  beforeAll(async () => {
    t = await startServer({ PUBLIC_URL: 'https://id.example.com' });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('lists every operation by operationId and summary, with no request to any other host', async () => {
    const context = await browser.newContext();
    const foreign: string[] = [];
    const local: string[] = [];
    // Every request the page makes passes here: local ones go on, anything else is recorded and refused.
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.protocol === 'blob:' || url.protocol === 'data:' || ['127.0.0.1', 'localhost'].includes(url.hostname)) {
        local.push(url.pathname);
        return route.continue();
      }
      foreign.push(url.href);
      return route.abort('blockedbyclient');
    });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));
    page.on('request', (req) => {
      const url = new URL(req.url());
      if (!['127.0.0.1', 'localhost'].includes(url.hostname) && !['blob:', 'data:'].includes(url.protocol)) foreign.push(url.href);
    });
    const csp: string[] = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error' && msg.text().includes('Content Security Policy')) csp.push(msg.text());
    });

    const res = await page.goto(`${t.baseUrl}/docs`);
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toContain("default-src 'none'");
    await page.locator('[data-section-id^="operation/"]').first().waitFor({ timeout: 20_000 });

    for (const op of operations) {
      const section = page.locator(`[data-section-id="operation/${op.operationId}"]`);
      // Redoc lists an operation once under each of its tags.
      await expect.poll(() => section.count(), { message: op.operationId }).toBe(op.tags?.length ?? 1);
      await expect.poll(() => section.locator('h2').first().innerText(), { message: op.operationId }).toBe(op.summary);
    }
    // The server address in the rendered contract is the configured PUBLIC_URL, and so is every
    // address its examples show (issue 51: they named localhost:3000 on any port).
    expect(await page.content()).toContain('https://id.example.com');
    expect(await page.content()).not.toContain('localhost:3000');
    await expect.poll(() => page.locator('[data-section-id="operation/getOpenIdConfiguration"]').innerText()).toContain('"issuer": "https://id.example.com"');
    // The menu names each group of operations in one case: its tag's display name.
    const tags = (contract.tags ?? []).map((tag) => tag['x-displayName'] ?? tag.name);
    const groups = await page.locator('.menu-content li[data-item-id^="tag/"]:not([data-item-id*="/operation/"]) > label').allInnerTexts();
    expect(groups).toEqual(tags);

    expect(local).toEqual(expect.arrayContaining(['/docs', '/docs/assets/redoc.standalone.js', '/openapi.json']));
    expect(foreign).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(csp).toEqual([]);
    await page.screenshot({ path: path.join(SCREENSHOTS_DIR, 'docs.png'), fullPage: false });
    await context.close();
  }, 180_000);

  for (const viewport of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
    const size = `${viewport.width}x${viewport.height}`;
    it(`passes axe (WCAG 2.2 A and AA) at ${size}, every operation rendered, under the page's own CSP`, async () => {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      const csp: string[] = [];
      page.on('console', (msg) => {
        if (msg.type() === 'error' && msg.text().includes('Content Security Policy')) csp.push(msg.text());
      });
      await page.goto(`${t.baseUrl}/docs`);
      await page.locator('[data-section-id^="operation/"]').first().waitFor({ timeout: 20_000 });
      await expect.poll(() => page.locator('[data-section-id^="operation/"]').count()).toBe(operations.reduce((n, op) => n + (op.tags?.length ?? 1), 0));
      // The page's own script has made its fixes (it marks the document when done).
      await page.locator('html[data-reference-ready]').waitFor({ state: 'attached' });
      await expectNoAxeViolations(page, `/docs (${size})`);
      if (viewport.width < 600) {
        // The menu of a phone-sized page opens over it from Redoc's round button, which the page's
        // script makes a button a keyboard reaches: opened with Enter, and checked open too.
        const menuButton = page.locator('.menu-content + div[role=button][tabindex="0"]');
        expect(await menuButton.getAttribute('aria-label')).toBe('Menu');
        await menuButton.focus();
        await page.keyboard.press('Enter');
        await expect.poll(() => page.locator('.menu-content').evaluate((menu) => getComputedStyle(menu).display)).not.toBe('none');
        await expect.poll(() => menuButton.getAttribute('aria-expanded')).toBe('true');
        await expectNoAxeViolations(page, `/docs with the menu open (${size})`);
      }
      await page.screenshot({ path: path.join(SCREENSHOTS_DIR, `docs-${size}.png`), fullPage: false });
      expect(csp).toEqual([]);
      await context.close();
    }, 180_000);
  }
});
