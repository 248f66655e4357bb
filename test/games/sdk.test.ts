/**
 * GET /sdk/game.js and /sdk/game.d.ts: the game SDK bundled from client/sdk/game.ts and its
 * generated declarations (generated/game.d.ts), cacheable, readable from any origin.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleBrowserCode } from '../../src/pages/browser-code.js';
import { startServer, type TestServer } from '../helpers.js';

let bundled: Map<string, string>;
const sdkFile = (name: string) => (name === 'game.d.ts' ? fs.readFileSync(path.resolve(import.meta.dirname, '../../generated/game.d.ts'), 'utf8') : bundled.get(`sdk/${name}`));

let t: TestServer;
beforeAll(async () => {
  [t, bundled] = await Promise.all([startServer(), bundleBrowserCode()]);
});
afterAll(async () => t?.close());

describe('the game SDK', () => {
  for (const [file, type] of [
    ['game.js', 'text/javascript; charset=utf-8'],
    ['game.d.ts', 'application/typescript; charset=utf-8'],
  ] as const) {
    it(`serves ${file} as made from client/sdk/game.ts, cacheable, to any origin, with a 304 on its ETag`, async () => {
      const res = await fetch(`${t.baseUrl}/sdk/${file}`, { headers: { Origin: 'https://game.example' } });
      expect(res.status).toBe(200);
      const etag = res.headers.get('etag');
      expect({
        type: res.headers.get('content-type'),
        cache: res.headers.get('cache-control'),
        etag,
        cors: res.headers.get('access-control-allow-origin'),
        vary: res.headers.get('vary'),
        corp: res.headers.get('cross-origin-resource-policy'),
        nosniff: res.headers.get('x-content-type-options'),
        cookie: res.headers.getSetCookie(),
      }).toEqual({
        type,
        cache: 'public, max-age=300',
        etag: expect.stringMatching(/^"[\w-]{22}"$/),
        cors: '*',
        vary: null,
        corp: 'cross-origin',
        nosniff: 'nosniff',
        cookie: [],
      });
      expect(await res.text()).toBe(sdkFile(file));

      // As a browser revalidating asks (fetch() alone would add Cache-Control: no-cache).
      const again = await fetch(`${t.baseUrl}/sdk/${file}`, { headers: { 'If-None-Match': etag!, 'Cache-Control': 'max-age=0' } });
      expect([again.status, again.headers.get('etag'), again.headers.get('cache-control'), await again.text()]).toEqual([304, etag, 'public, max-age=300', '']);
      const stale = await fetch(`${t.baseUrl}/sdk/${file}`, { headers: { 'If-None-Match': '"other"', 'Cache-Control': 'max-age=0' } });
      expect(stale.status).toBe(200);
      expect(await stale.text()).toBe(sdkFile(file));
    });
  }

  it('serves an ES module of plain JavaScript with the four exports the declarations name', async () => {
    const body = await (await fetch(`${t.baseUrl}/sdk/game.js`)).text();
    const sdk = (await import(`data:text/javascript,${encodeURIComponent(body)}`)) as Record<string, unknown>;
    expect(Object.keys(sdk).sort()).toEqual(['GAME_FLOW_ERROR_CODES', 'GameAuthError', 'authorize', 'info']);
    const types = await (await fetch(`${t.baseUrl}/sdk/game.d.ts`)).text();
    for (const name of ['const GAME_FLOW_ERROR_CODES', 'class GameAuthError', 'function authorize', 'function info']) expect(types).toContain(`export declare ${name}`);
  });

  it('the two files have different ETags; HEAD has no body', async () => {
    const [js, dts] = await Promise.all(['game.js', 'game.d.ts'].map((f) => fetch(`${t.baseUrl}/sdk/${f}`, { method: 'HEAD' })));
    expect(js!.headers.get('etag')).not.toBe(dts!.headers.get('etag'));
    expect([js!.status, await js!.text()]).toEqual([200, '']);
  });
});
