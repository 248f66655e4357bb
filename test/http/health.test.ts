/** GET /healthz, the load balancer's readiness probe: 200 while serving, 503 once the instance is stopping. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers.js';

let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(async () => t?.close());

describe('GET /healthz', () => {
  it('answers 200 {status: "ok"}, never cached, while the instance serves', async () => {
    const res = await fetch(`${t.baseUrl}/healthz`);
    expect([res.status, res.headers.get('cache-control'), await res.json()]).toEqual([200, 'no-store', { status: 'ok' }]);
  });

  it('answers 503 "Shutting down", never cached, once SIGTERM has set the instance shutting down (src/server.ts)', async () => {
    t.app.deps.readiness.shuttingDown = true;
    try {
      const res = await fetch(`${t.baseUrl}/healthz`);
      expect([res.status, res.headers.get('cache-control'), await res.json()]).toEqual([503, 'no-store', { message: 'Shutting down' }]);
      // Only the probe says so: requests in flight and on kept-alive connections are still served.
      expect((await fetch(`${t.baseUrl}/api/users/info?id=1`)).status).toBe(404);
    } finally {
      t.app.deps.readiness.shuttingDown = false;
    }
  });
});
