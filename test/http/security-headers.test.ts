/**
 * The security headers are computed once at start (src/http/security-headers.ts, with the options
 * of src/security/headers.ts). What the served responses carry must equal what koa-helmet, run per
 * response in a plain Koa app with the same options, sets: a header the precomputed lists drop,
 * add or alter fails here.
 */
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import koaHelmet from 'koa-helmet';
import type { HelmetOptions } from 'helmet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiHelmetOptions, helmetOptions } from '../../src/security/headers.js';
import { makeToken, makeUser, startServer, type TestServer } from '../helpers.js';

/** The headers koa-helmet sets on a real response of a bare Koa app, per request. */
async function perResponseHelmet(options: HelmetOptions): Promise<Record<string, string>> {
  const koa = new Koa();
  koa.use(koaHelmet(options));
  koa.use((ctx) => {
    ctx.body = 'ok';
  });
  const server = koa.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    await res.text();
    const { 'content-type': _t, 'content-length': _l, date: _d, connection: _c, 'keep-alive': _k, ...helmetSet } = Object.fromEntries(res.headers);
    return helmetSet;
  } finally {
    server.close();
  }
}

/** The named headers of a served response. */
function pick(res: Response, names: string[]): Record<string, string | null> {
  return Object.fromEntries(names.map((n) => [n, res.headers.get(n)]));
}

let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(async () => t?.close());

describe('security headers computed once equal helmet run per response', () => {
  it('a page (GET /signin) carries the document set', async () => {
    const expected = await perResponseHelmet(helmetOptions(false));
    expect(expected['content-security-policy']).toContain("frame-ancestors 'none'");
    const res = await fetch(`${t.baseUrl}/signin`);
    expect(res.status).toBe(200);
    expect(pick(res, Object.keys(expected))).toEqual(expected);
  });

  it('a same-origin API response (GET /api/oauth/whois) carries the compact set, same-origin', async () => {
    const expected = await perResponseHelmet(apiHelmetOptions(false));
    const { token } = await makeToken(t);
    const res = await fetch(`${t.baseUrl}/api/oauth/whois`, { headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(pick(res, Object.keys(expected))).toEqual(expected);
    // Nothing of the document set that the API set leaves out.
    expect(pick(res, ['x-frame-options', 'cross-origin-opener-policy', 'origin-agent-cluster', 'x-xss-protection'])).toEqual({
      'x-frame-options': null,
      'cross-origin-opener-policy': null,
      'origin-agent-cluster': null,
      'x-xss-protection': null,
    });
  });

  it('a public API response (GET /api/users/info) carries the compact set, cross-origin', async () => {
    const expected = await perResponseHelmet(apiHelmetOptions(true));
    expect(expected).toEqual({
      'content-security-policy': "default-src 'none';frame-ancestors 'none'",
      'cross-origin-resource-policy': 'cross-origin',
      'referrer-policy': 'no-referrer',
      'strict-transport-security': 'max-age=31536000; includeSubDomains',
      'x-content-type-options': 'nosniff',
    });
    const user = await makeUser(t);
    const res = await fetch(`${t.baseUrl}/api/users/info?id=${user.id}`);
    expect(res.status).toBe(200);
    expect(pick(res, Object.keys(expected))).toEqual(expected);
  });
});
