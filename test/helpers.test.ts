/**
 * The harness itself (test/helpers.ts): what every other suite takes for granted. What the
 * endpoints answer is their own suites' job (test/oauth/whois.test.ts, test/oauth/grants/authorization-code.test.ts, ...).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, makeToken, makeUser, startServer, TEST_DATABASE, TEST_PASSWORD, type TestServer } from './helpers.js';

let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(async () => t?.close());

describe(`harness (${TEST_DATABASE})`, () => {
  it('starts a service over an empty, migrated database, with its own picture folder', async () => {
    expect(await t.store.users.countUsers()).toBe(0);
    expect(path.dirname(t.config.picturesDir)).toBe(t.dir);
    expect((await fetch(`${t.baseUrl}/healthz`)).status).toBe(200);
  });

  it('a second server has its own port and database; close() stops it and removes its folder', async () => {
    const other = await startServer();
    let closed = false;
    try {
      expect(other.baseUrl).not.toBe(t.baseUrl);
      await makeUser(t);
      expect(await t.store.users.countUsers()).toBeGreaterThan(0);
      expect(await other.store.users.countUsers()).toBe(0);
      await other.close();
      closed = true;
      expect(fs.existsSync(other.dir)).toBe(false);
      await expect(fetch(`${other.baseUrl}/healthz`)).rejects.toThrow();
    } finally {
      if (!closed) await other.close();
    }
  });

  it('the clock moves only when the test moves it, and the service reads it', async () => {
    const start = t.clock.now();
    t.clock.advance(1000);
    expect(t.clock.now()).toBe(start + 1000);
    // A token issued now is expired 600 s later by the service's clock, not the wall clock.
    const { token } = await makeToken(t);
    t.clock.advance(600_000);
    const res = await fetch(`${t.baseUrl}/api/oauth/whois`, { headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ message: 'Access token has expired' });
  });

  it('makeUser creates a user who signs in with TEST_PASSWORD', async () => {
    const user = await makeUser(t, 'Harness_User');
    expect(user).toMatchObject({ name: 'Harness_User', email: 'harness_user@example.com' });
    const agent = new Agent(t);
    expect((await agent.form('/signin', { name: 'harness_user', password: 'wrong-password-1' })).status).not.toBe(303);
    expect((await agent.form('/signin', { name: 'harness_user', password: TEST_PASSWORD })).status).toBe(303);
  });
});
