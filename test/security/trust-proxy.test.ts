/** TRUST_PROXY: the client address and scheme behind a load balancer, and nobody else's say-so. */
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, startServer, type TestServer } from '../helpers.js';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** Three sign-in attempts per address; the fourth is refused. */
const SMALL = { limits: { signInIp: { points: 3, seconds: 600 } } };

async function failedSignIn(t: TestServer, headers: Record<string, string>, login: string): Promise<number> {
  const agent = new Agent(t);
  const body = new URLSearchParams({ _csrf: await agent.csrf(), name: login, password: 'wrong password' });
  const res = await agent.fetch('/signin', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: body.toString(),
  });
  return res.status;
}

describe('TRUST_PROXY', () => {
  it('gives two clients behind one trusted proxy each their own sign-in budget', async () => {
    t = await startServer({ TRUST_PROXY: '127.0.0.1' }, SMALL);
    const alice = { 'X-Forwarded-For': '203.0.113.7' };
    const bob = { 'X-Forwarded-For': '198.51.100.9' };
    for (let i = 0; i < 3; i++) expect(await failedSignIn(t, alice, `nobody-a${i}`)).toBe(401);
    expect(await failedSignIn(t, alice, 'nobody-a3')).toBe(429);
    // Bob's budget is untouched by Alice's attempts, though both arrive from the proxy's address.
    expect(await failedSignIn(t, bob, 'nobody-b0')).toBe(401);
  });

  it('takes the client address from the right of X-Forwarded-For: a client cannot prepend its own', async () => {
    t = await startServer({ TRUST_PROXY: '1' }, SMALL);
    // The proxy appends the address it saw (198.51.100.9) to whatever the client sent.
    for (let i = 0; i < 3; i++) {
      expect(await failedSignIn(t, { 'X-Forwarded-For': `10.9.9.${i}, 198.51.100.9` }, `nobody-${i}`)).toBe(401);
    }
    expect(await failedSignIn(t, { 'X-Forwarded-For': '10.9.9.99, 198.51.100.9' }, 'nobody-x')).toBe(429);
  });

  it('ignores a forged X-Forwarded-For from an untrusted peer', async () => {
    for (const env of [{}, { TRUST_PROXY: '10.0.0.0/8' }]) {
      t = await startServer(env, SMALL);
      for (let i = 0; i < 3; i++) expect(await failedSignIn(t, { 'X-Forwarded-For': `203.0.113.${i}` }, `nobody-${i}`)).toBe(401);
      expect(await failedSignIn(t, { 'X-Forwarded-For': '203.0.113.200' }, 'nobody-x')).toBe(429);
      await t.close();
      t = undefined;
    }
  });

  it('marks the session cookie Secure when a trusted proxy says the client used https, and only then', async () => {
    t = await startServer({ TRUST_PROXY: 'loopback' });
    const https = await fetch(`${t.baseUrl}/api/session`, { headers: { 'X-Forwarded-Proto': 'https' } });
    expect(https.headers.getSetCookie().every((line) => /; secure/i.test(line))).toBe(true);
    const http = await fetch(`${t.baseUrl}/api/session`);
    expect(http.headers.getSetCookie().some((line) => /; secure/i.test(line))).toBe(false);
    await t.close();

    t = await startServer({ TRUST_PROXY: '10.0.0.0/8' });
    const forged = await fetch(`${t.baseUrl}/api/session`, { headers: { 'X-Forwarded-Proto': 'https' } });
    expect(forged.status).toBe(200);
    expect(forged.headers.getSetCookie().some((line) => /; secure/i.test(line))).toBe(false);
  });
});
