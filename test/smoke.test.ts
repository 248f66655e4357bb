/**
 * The harness itself (test/helpers.ts): what every other suite takes for granted. What the
 * endpoints answer is their own suites' job (getWhois.test.ts, exchangeToken.test.ts, ...).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Agent, makeToken, makeUser, startServer, TEST_DATABASE, TEST_PASSWORD } from './helpers.js';

describe(`harness (${TEST_DATABASE})`, () => {
  it('starts a service on its own port, over an empty migrated database and its own picture folder', async () => {
    const a = await startServer();
    const b = await startServer();
    try {
      expect(a.baseUrl).not.toBe(b.baseUrl);
      expect(await a.store.countUsers()).toBe(0);
      await makeUser(a);
      expect(await a.store.countUsers()).toBe(1);
      expect(await b.store.countUsers()).toBe(0);
      expect(path.dirname(a.config.picturesDir)).toBe(a.dir);
      expect((await fetch(`${a.baseUrl}/healthz`)).status).toBe(200);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('close() stops the server and removes its folder', async () => {
    const t = await startServer();
    await t.close();
    expect(fs.existsSync(t.dir)).toBe(false);
    await expect(fetch(`${t.baseUrl}/healthz`)).rejects.toThrow();
  });

  it('the clock moves only when the test moves it, and the service reads it', async () => {
    const t = await startServer();
    try {
      const start = t.clock.now();
      t.clock.advance(600_000);
      expect(t.clock.now()).toBe(start + 600_000);
      // A token issued now is expired 600 s later by the service's clock, not the wall clock.
      const { token } = await makeToken(t);
      t.clock.advance(600_000);
      const res = await fetch(`${t.baseUrl}/api/oauth/whois`, { headers: { Authorization: `Bearer ${token}` } });
      expect(res.status).toBe(401);
    } finally {
      await t.close();
    }
  });

  it('makeUser creates a user who signs in with TEST_PASSWORD', async () => {
    const t = await startServer();
    try {
      const user = await makeUser(t, 'Harness_User');
      expect(user).toMatchObject({ name: 'Harness_User', email: 'harness_user@example.com' });
      const agent = new Agent(t);
      expect((await agent.form('/signin', { name: 'harness_user', password: 'wrong-password-1' })).status).not.toBe(303);
      const res = await agent.form('/signin', { name: 'harness_user', password: TEST_PASSWORD });
      expect(res.status).toBe(303);
    } finally {
      await t.close();
    }
  });
});
