import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type Koa from 'koa';
import koaHelmet from 'koa-helmet';
import { describe, expect, it } from 'vitest';
import { apiHelmetOptions, helmetOptions, staticHelmetHeaders } from '../src/security/headers.js';

async function liveHeaders(crossOrigin: boolean, options = helmetOptions): Promise<Record<string, string>> {
  const req = new IncomingMessage(new Socket());
  const res = new ServerResponse(req);
  await koaHelmet(options(crossOrigin))({ req, res } as unknown as Koa.Context, async () => {});
  return Object.fromEntries(Object.entries(res.getHeaders()).map(([k, v]) => [k, String(v)]));
}

describe('security headers computed once', () => {
  it.each([false, true])('equal what helmet sets per response (cross-origin resources: %s)', async (crossOrigin) => {
    const computed = staticHelmetHeaders(helmetOptions(crossOrigin));
    expect(computed).toEqual(await liveHeaders(crossOrigin));
    expect(computed['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(computed['cross-origin-resource-policy']).toBe(crossOrigin ? 'cross-origin' : 'same-origin');
  });

  it.each([false, true])('API responses get the compact set (cross-origin resources: %s)', async (crossOrigin) => {
    const computed = staticHelmetHeaders(apiHelmetOptions(crossOrigin));
    expect(computed).toEqual(await liveHeaders(crossOrigin, apiHelmetOptions));
    expect(computed).toEqual({
      'content-security-policy': "default-src 'none';frame-ancestors 'none'",
      'cross-origin-resource-policy': crossOrigin ? 'cross-origin' : 'same-origin',
      'referrer-policy': 'no-referrer',
      'strict-transport-security': 'max-age=31536000; includeSubDomains',
      'x-content-type-options': 'nosniff',
    });
  });
});
