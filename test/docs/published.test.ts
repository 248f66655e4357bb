/** GET /openapi.yaml, /openapi.json, /docs and /docs/assets/{file}, against the app directly. */
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers.js';

interface Contract {
  paths: Record<string, Record<string, { tags?: string[]; responses: Record<string, { content?: Record<string, { example?: unknown }> }> }>>;
}
const source = yaml.load(fs.readFileSync(path.resolve(import.meta.dirname, '../../openapi.yaml'), 'utf8')) as Record<string, unknown>;

let t: TestServer;
beforeAll(async () => {
  t = await startServer({ PUBLIC_URL: 'https://id.example.com/' });
});
afterAll(async () => t?.close());

describe('the published contract', () => {
  it('serves openapi.yaml: the source document with servers, and the addresses of its examples, at PUBLIC_URL', async () => {
    const res = await fetch(`${t.baseUrl}/openapi.yaml`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/yaml; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const doc = yaml.load(await res.text()) as Record<string, unknown>;
    expect(doc.servers).toEqual([{ url: 'https://id.example.com', description: 'This server' }]);
    const atPublicUrl = JSON.parse(JSON.stringify(source).replaceAll('"http://localhost:3000', '"https://id.example.com')) as Record<string, unknown>;
    expect({ ...doc, servers: undefined }).toEqual({ ...atPublicUrl, servers: undefined });
  });

  it("names this server in every example (issue 51: they named localhost:3000 whatever the service's address)", async () => {
    const doc = (await (await fetch(`${t.baseUrl}/openapi.json`)).json()) as Contract;
    expect(JSON.stringify(doc)).not.toContain('localhost:3000');
    const example = (path: string, method: string, status: string) => doc.paths[path]![method]!.responses[status]!.content!['application/json']!.example as Record<string, string>;
    const metadata = example('/.well-known/openid-configuration', 'get', '200');
    expect([metadata.issuer, metadata.token_endpoint, metadata.service_documentation]).toEqual([
      'https://id.example.com',
      'https://id.example.com/api/oauth/token',
      'https://id.example.com/docs',
    ]);
    expect(example('/api/oauth/device_authorization', 'post', '200').verification_uri).toBe('https://id.example.com/device');
    // The authenticator app's example names the issuer the service gives it (its PRODUCT_NAME), as the code does.
    expect(example('/api/account/totp', 'post', '200').uri).toMatch(/^otpauth:\/\/totp\/Identity:ada_l\?issuer=Identity&/);
  });

  it("opens with how a client keeps a person signed in: refresh tokens, not re-reading public profiles", () => {
    const intro = (source.info as { description: string }).description;
    expect(intro).not.toContain('without authentication');
    expect(intro).toContain(
      '4. A token lives 600 seconds. To keep a person signed in longer, an app registered with the\n' +
        '   refresh grant asks for `offline_access`, and exchanges the **refresh token** it gets for a\n' +
        '   new access token (`grant_type=refresh_token` at `POST /api/oauth/token`; each use replaces\n' +
        '   it). A user\'s public profile (name, picture, flair) needs no token at all\n' +
        '   (`GET /api/users/info?id=N`).\n',
    );
  });

  it('names every tag in one case: each declared, with a capitalised display name', () => {
    const tags = source.tags as { name: string; 'x-displayName'?: string }[];
    expect(tags.map((tag) => [tag.name, /^[A-Z][a-z]*( [a-z]+)*$|^OAuth$/.test(tag['x-displayName'] ?? '')])).toEqual(tags.map((tag) => [tag.name, true]));
    const used = new Set(Object.values((source as unknown as Contract).paths).flatMap((methods) => Object.values(methods).flatMap((op) => op.tags ?? [])));
    expect([...used].filter((name) => !tags.some((tag) => tag.name === name))).toEqual([]);
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
