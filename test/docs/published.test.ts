/** GET /openapi.yaml, /openapi.json, /docs and /docs/assets/{file}, against the app directly. */
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers.js';

const source = yaml.load(fs.readFileSync(path.resolve(import.meta.dirname, '../../openapi.yaml'), 'utf8')) as Record<string, unknown>;

let t: TestServer;
beforeAll(async () => {
  t = await startServer({ PUBLIC_URL: 'https://id.example.com/' });
});
afterAll(async () => t?.close());

describe('the published contract', () => {
  it('serves openapi.yaml: the source document with servers set to PUBLIC_URL', async () => {
    const res = await fetch(`${t.baseUrl}/openapi.yaml`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/yaml; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const doc = yaml.load(await res.text()) as Record<string, unknown>;
    expect(doc.servers).toEqual([{ url: 'https://id.example.com', description: 'This server' }]);
    expect({ ...doc, servers: undefined }).toEqual({ ...source, servers: undefined });
  });

  it('serves openapi.json: the same document as JSON', async () => {
    const res = await fetch(`${t.baseUrl}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const doc = (await res.json()) as Record<string, unknown>;
    const fromYaml = yaml.load(await (await fetch(`${t.baseUrl}/openapi.yaml`)).text());
    expect(doc).toEqual(fromYaml);
  });

  it('answers HEAD without a body', async () => {
    const res = await fetch(`${t.baseUrl}/openapi.json`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
  });

  it('uses the default PUBLIC_URL (http://localhost:<PORT>) when none is set', async () => {
    const other = await startServer({ PORT: '4321' });
    try {
      // startServer listens on a random port itself; the published address follows the config.
      const doc = (await (await fetch(`${other.baseUrl}/openapi.json`)).json()) as { servers: { url: string }[] };
      expect(doc.servers[0]!.url).toBe('http://localhost:4321');
    } finally {
      await other.close();
    }
  });
});

describe('the docs page', () => {
  it('is HTML that loads Redoc from this service only, with a same-origin CSP', async () => {
    const res = await fetch(`${t.baseUrl}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/https?:/);
    const html = await res.text();
    expect(html).toMatch(/<redoc spec-url="openapi.json"[^>]*><\/redoc>/);
    expect(html).toContain('<script src="docs/assets/redoc.standalone.js"></script>');
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
  });

  it('serves the Redoc bundle and its license notices', async () => {
    const js = await fetch(`${t.baseUrl}/docs/assets/redoc.standalone.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toBe('public, max-age=3600');
    const body = await js.text();
    expect(body.length).toBeGreaterThan(500_000);
    expect(body).not.toContain('cdn.redoc.ly');
    const license = await fetch(`${t.baseUrl}/docs/assets/redoc.standalone.js.LICENSE.txt`);
    expect(license.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await license.text()).toContain('MIT');
  });

  it("serves the page's own accessibility script after Redoc's, with Redoc's theme in the page (test/browser/docs-page.test.ts runs axe)", async () => {
    const html = await (await fetch(`${t.baseUrl}/docs`)).text();
    expect(html).toContain('<script src="docs/assets/redoc.standalone.js"></script>\n<script src="docs/assets/reference-a11y.js"></script>');
    const theme = /<redoc [^>]*theme="([^"]*)"/.exec(html)![1]!.replace(/&#34;/g, '"');
    expect((JSON.parse(theme) as { colors: { text: { primary: string } } }).colors.text.primary).toBe('#1a202c');
    const script = await fetch(`${t.baseUrl}/docs/assets/reference-a11y.js`);
    expect([script.status, script.headers.get('content-type'), script.headers.get('cache-control')]).toEqual([200, 'application/javascript; charset=utf-8', 'public, max-age=3600']);
    expect(await script.text()).toContain("setAttribute('data-reference-ready', '')");
  });

  it('answers 404 for any other asset name', async () => {
    for (const name of ['other.js', '..%2Fpackage.json', 'redoc.standalone.js.map']) {
      const res = await fetch(`${t.baseUrl}/docs/assets/${name}`);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ message: 'No such docs asset' });
    }
  });
});
