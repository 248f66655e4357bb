import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeToken, startServer, type TestServer } from './helpers.js';

let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(async () => t.close());

describe('harness', () => {
  it('issues a token through the real endpoint and whois answers', async () => {
    const { user, token } = await makeToken(t, 'userinfo email');
    const res = await fetch(`${t.baseUrl}/api/oauth/whois`, { headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: user.id, name: user.name, email: user.email });
  });
});
