/** changePassword: current password required (rate-limited like sign-in); other sessions end, this one stays. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, makeUser, signedInAgent, startServer, TEST_PASSWORD, type TestServer } from '../helpers.js';

let t: TestServer;
beforeAll(async () => {
  // Many sign-ins from one address: only the per-account limit is under test here.
  t = await startServer({}, { limits: { signInIp: { points: 1000, seconds: 600 } } });
});
afterAll(async () => t?.close());

const NEW_PASSWORD = 'a brand new password';

describe('changePassword', () => {
  it('changes the password; every other session ends and this one stays signed in', async () => {
    const { agent, user } = await signedInAgent(t);
    const other = new Agent(t);
    await other.signIn(user);
    const res = await agent.json('POST', '/api/account/password', { current_password: TEST_PASSWORD, new_password: NEW_PASSWORD });
    expect(res.status).toBe(204);
    expect((await agent.fetch('/api/account')).status).toBe(200);
    expect((await other.fetch('/api/account')).status).toBe(401);
    // The old password no longer signs in; the new one does.
    const old = await new Agent(t).form('/signin', { name: user.name, password: TEST_PASSWORD });
    expect(old.status).toBe(401);
    await new Agent(t).signIn(user, NEW_PASSWORD);
    // The stored hash is not the password.
    expect((await t.store.users.getUser(user.id))!.passwordHash).not.toContain(NEW_PASSWORD);
  });

  it('refuses a wrong current password (403), changing nothing and ending no session', async () => {
    const { agent, user } = await signedInAgent(t);
    const other = new Agent(t);
    await other.signIn(user);
    const res = await agent.json('POST', '/api/account/password', { current_password: 'wrong password', new_password: NEW_PASSWORD });
    expect([res.status, await res.json()]).toEqual([403, { message: 'The current password is wrong' }]);
    expect((await other.fetch('/api/account')).status).toBe(200);
    await new Agent(t).signIn(user, TEST_PASSWORD);
  });

  it('refuses a new password that is too short or too long (400)', async () => {
    const { agent } = await signedInAgent(t);
    for (const newPassword of ['short', 'x'.repeat(257)]) {
      const res = await agent.json('POST', '/api/account/password', { current_password: TEST_PASSWORD, new_password: newPassword });
      expect([res.status, await res.json()]).toEqual([400, { message: 'Password must be 8 to 256 characters' }]);
    }
  });

  it('needs a signed-in session and the CSRF token; missing fields are 400', async () => {
    const { agent } = await signedInAgent(t);
    const noCsrf = await agent.fetch('/api/account/password', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ current_password: TEST_PASSWORD, new_password: NEW_PASSWORD }),
    });
    expect(noCsrf.status).toBe(403);
    expect((await new Agent(t).json('POST', '/api/account/password', { current_password: 'x', new_password: NEW_PASSWORD })).status).toBe(401);
    const missing = await agent.json('POST', '/api/account/password', { new_password: NEW_PASSWORD });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { message: string }).message).toMatch(/current_password/);
  });

  it('is rate-limited like sign-in: after 10 wrong passwords even the right one is refused with 429, and sign-in too', async () => {
    const user = await makeUser(t);
    const agent = new Agent(t);
    await agent.signIn(user);
    for (let i = 0; i < 10; i++) {
      expect((await agent.json('POST', '/api/account/password', { current_password: `wrong-${i}-password`, new_password: NEW_PASSWORD })).status).toBe(403);
    }
    const locked = await agent.json('POST', '/api/account/password', { current_password: TEST_PASSWORD, new_password: NEW_PASSWORD });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await locked.json()) as { message: string }).message).toMatch(/^Too many attempts, retry in \d+ seconds$/);
    expect((await new Agent(t).form('/signin', { name: user.name, password: TEST_PASSWORD })).status).toBe(429);
  });
});
