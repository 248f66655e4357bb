import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type Koa from 'koa';
import koaHelmet from 'koa-helmet';
import { describe, expect, it } from 'vitest';
import { helmetOptions, staticHelmetHeaders } from '../src/security/headers.js';

async function liveHeaders(crossOrigin: boolean): Promise<Record<string, string>> {
  const req = new IncomingMessage(new Socket());
  const res = new ServerResponse(req);
  await koaHelmet(helmetOptions(crossOrigin))({ req, res } as unknown as Koa.Context, async () => {});
  return Object.fromEntries(Object.entries(res.getHeaders()).map(([k, v]) => [k, String(v)]));
}

describe('security headers computed once', () => {
  it.each([false, true])('equal what helmet sets per response (cross-origin resources: %s)', async (crossOrigin) => {
    const computed = staticHelmetHeaders(helmetOptions(crossOrigin));
    expect(computed).toEqual(await liveHeaders(crossOrigin));
    expect(computed['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(computed['cross-origin-resource-policy']).toBe(crossOrigin ? 'cross-origin' : 'same-origin');
  });
});
