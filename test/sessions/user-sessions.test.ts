/**
 * The user's sessions: listSessions (started, last seen, user agent, the address signed in from,
 * a public id that is not the cookie), endSession by that id, signOutEverywhere, and the throttled
 * last-seen write.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAST_SEEN_EVERY_MS } from '../../src/sessions/session.js';
import { Agent, makeUser, startServer, TEST_PASSWORD, type TestServer } from '../helpers.js';

let t: TestServer;
beforeAll(async () => {
  t = await startServer({}, { limits: { signInIp: { points: 1000, seconds: 600 } } });
});
afterAll(async () => t?.close());

interface Listed {
  id: string;
  started_at: number;
  last_seen_at: number;
  user_agent?: string;
  ip?: string;
  current: boolean;
}

async function signIn(user: { name: string }, userAgent: string, server = t, headers: Record<string, string> = {}): Promise<Agent> {
  const agent = new Agent(server);
  const csrf = await agent.csrf();
  const res = await agent.fetch('/signin', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'User-Agent': userAgent, ...headers },
    body: new URLSearchParams({ _csrf: csrf, name: user.name, password: TEST_PASSWORD }).toString(),
  });
  expect(res.status).toBe(303);
  return agent;
}

async function list(agent: Agent): Promise<Listed[]> {
  const res = await agent.fetch('/api/account/sessions');
  expect(res.status).toBe(200);
  expect(res.headers.get('cache-control')).toBe('no-store');
  return ((await res.json()) as { sessions: Listed[] }).sessions;
}

describe('listSessions', () => {
  it("lists the user's signed-in sessions with started, last seen, user agent and which is current", async () => {
    const user = await makeUser(t);
    const started = t.clock.now();
    const laptop = await signIn(user, 'Laptop Browser/1.0');
    t.clock.advance(1000);
    const phone = await signIn(user, 'Phone Browser/2.0');
    // Someone else's session is not listed.
    await signIn(await makeUser(t), 'Other/1');
    const sessions = await list(laptop);
    expect(sessions).toHaveLength(2);
    expect(sessions.map((s) => s.user_agent)).toEqual(['Phone Browser/2.0', 'Laptop Browser/1.0']);
    expect(sessions.map((s) => s.current)).toEqual([false, true]);
    expect(sessions.map((s) => s.ip)).toEqual(['127.0.0.1', '127.0.0.1']);
    expect(sessions[1]).toMatchObject({ started_at: started, last_seen_at: started });
    expect(sessions[0]).toMatchObject({ started_at: started + 1000, last_seen_at: started + 1000 });
    expect((await list(phone)).map((s) => s.current)).toEqual([true, false]);
  });

  it('says the address each session signed in from, as the sign-in history does: behind a trusted proxy the forwarded one', async () => {
    const proxied = await startServer({ TRUST_PROXY: '127.0.0.1' });
    try {
      const user = await makeUser(proxied);
      const started = proxied.clock.now();
      const laptop = await signIn(user, 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0', proxied, { 'X-Forwarded-For': '203.0.113.7' });
      proxied.clock.advance(1000);
      await signIn(user, 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0', proxied, { 'X-Forwarded-For': '2001:db8::23' });
      // Listed from yet another address: each session keeps the one it signed in from.
      const res = await laptop.fetch('/api/account/sessions', { headers: { 'X-Forwarded-For': '198.51.100.9' } });
      expect([res.status, res.headers.get('cache-control'), await res.json()]).toEqual([
        200,
        'no-store',
        {
          sessions: [
            { id: expect.stringMatching(/^[\w-]{22}$/), started_at: started + 1000, last_seen_at: started + 1000, user_agent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0', ip: '2001:db8::23', current: false },
            { id: expect.stringMatching(/^[\w-]{22}$/), started_at: started, last_seen_at: started, user_agent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0', ip: '203.0.113.7', current: true },
          ],
        },
      ]);
      expect((await proxied.store.signIns.listSignIns(user.id, 10)).map((s) => s.ip)).toEqual(['2001:db8::23', '203.0.113.7']);
    } finally {
      await proxied.close();
    }
  });

  it('leaves the address out for a session signed in before it was recorded, also after its next write', async () => {
    const user = await makeUser(t);
    const id = randomBytes(32).toString('base64url');
    const idHash = createHash('sha256').update(id).digest('hex');
    const started = t.clock.now();
    // Its meta (in its data, and in the columns the migration left the address null in) has no address.
    const meta = { publicId: randomBytes(16).toString('base64url'), startedAt: started, lastSeenAt: started, userAgent: 'Old/1' };
    await t.store.sessions.setSession(idHash, JSON.stringify({ userId: user.id, csrfSecret: 'x'.repeat(24), meta }), started + 60 * 60_000, user.id, { ...meta, signInIp: null });
    const agent = new Agent(t);
    agent.cookies.set('idp.sid', id);
    agent.cookies.set('idp.sid.sig', createHmac('sha1', t.config.sessionSecret).update(`idp.sid=${id}`).digest('base64url'));
    const expected = (lastSeen: number) => [{ id: meta.publicId, started_at: started, last_seen_at: lastSeen, user_agent: 'Old/1', current: true }];
    expect(await list(agent)).toEqual(expected(started));
    t.clock.advance(LAST_SEEN_EVERY_MS);
    expect((await agent.fetch('/api/account')).status).toBe(200);
    expect(await list(agent)).toEqual(expected(started + LAST_SEEN_EVERY_MS));
  });

  it('the public id is neither the cookie value nor its stored hash', async () => {
    const user = await makeUser(t);
    const agent = await signIn(user, 'UA');
    const [session] = await list(agent);
    const cookie = agent.cookies.get('idp.sid')!;
    expect(session!.id).toMatch(/^[\w-]{22}$/);
    expect(session!.id).not.toBe(cookie);
    expect(session!.id).not.toBe(createHash('sha256').update(cookie).digest('base64url'));
    expect(session!.id).not.toBe(createHash('sha256').update(cookie).digest('hex'));
  });

  it('leaves the user agent out when the browser sent none', async () => {
    const user = await makeUser(t);
    const agent = await signIn(user, '');
    const [session] = await list(agent);
    expect(session).not.toHaveProperty('user_agent');
  });

  it('updates last seen at most every 5 minutes', async () => {
    const user = await makeUser(t);
    const agent = await signIn(user, 'UA');
    const start = t.clock.now();
    t.clock.advance(LAST_SEEN_EVERY_MS - 1);
    expect((await list(agent))[0]!.last_seen_at).toBe(start);
    t.clock.advance(1);
    await agent.fetch('/api/account');
    expect((await list(agent))[0]!.last_seen_at).toBe(start + LAST_SEEN_EVERY_MS);
  });

  it('a session signed in before sessions had public ids gets one on its next request', async () => {
    const user = await makeUser(t);
    const id = randomBytes(32).toString('base64url');
    await t.store.sessions.setSession(createHash('sha256').update(id).digest('hex'), JSON.stringify({ userId: user.id, csrfSecret: 'x'.repeat(24) }), t.clock.now() + 60_000, user.id);
    // A koa-session cookie and its keygrip signature (HMAC-SHA1 of "name=value", base64url).
    const sig = createHmac('sha1', t.config.sessionSecret).update(`idp.sid=${id}`).digest('base64url');
    const agent = new Agent(t);
    agent.cookies.set('idp.sid', id);
    agent.cookies.set('idp.sid.sig', sig);
    expect(await t.store.sessions.listUserSessions(user.id, t.clock.now())).toEqual([]);
    expect((await agent.fetch('/api/account')).status).toBe(200);
    const sessions = await list(agent);
    // Where it signed in from is not known: this request's address is not it.
    expect(sessions).toEqual([{ id: expect.stringMatching(/^[\w-]{22}$/), started_at: t.clock.now(), last_seen_at: t.clock.now(), current: true, user_agent: 'node' }]);
    expect(await t.store.sessions.listUserSessions(user.id, t.clock.now())).toHaveLength(1);
  });

  it('is 401 signed out', async () => {
    const res = await new Agent(t).fetch('/api/account/sessions');
    expect([res.status, await res.json()]).toEqual([401, { message: 'Sign in first' }]);
  });
});

describe('endSession', () => {
  it('ends another session of the user by its public id; that browser is signed out', async () => {
    const user = await makeUser(t);
    const laptop = await signIn(user, 'Laptop');
    const phone = await signIn(user, 'Phone');
    const target = (await list(laptop)).find((s) => !s.current)!;
    const res = await laptop.json('DELETE', `/api/account/sessions/${target.id}`);
    expect(res.status).toBe(204);
    expect((await phone.fetch('/api/account')).status).toBe(401);
    expect((await laptop.fetch('/api/account')).status).toBe(200);
    expect((await list(laptop)).map((s) => s.user_agent)).toEqual(['Laptop']);
  });

  it('ending the current session signs this browser out', async () => {
    const user = await makeUser(t);
    const agent = await signIn(user, 'UA');
    const [me] = await list(agent);
    expect((await agent.json('DELETE', `/api/account/sessions/${me!.id}`)).status).toBe(204);
    expect((await agent.fetch('/api/account')).status).toBe(401);
  });

  it("is 404 for an unknown id or another user's session, which stays signed in", async () => {
    const user = await makeUser(t);
    const agent = await signIn(user, 'UA');
    const other = await signIn(await makeUser(t), 'UA');
    const [theirs] = await list(other);
    for (const id of ['nope', theirs!.id]) {
      const res = await agent.json('DELETE', `/api/account/sessions/${id}`);
      expect([res.status, await res.json()]).toEqual([404, { message: 'Session not found' }]);
    }
    expect((await other.fetch('/api/account')).status).toBe(200);
  });

  it('needs the CSRF token', async () => {
    const user = await makeUser(t);
    const agent = await signIn(user, 'UA');
    const [me] = await list(agent);
    const res = await agent.fetch(`/api/account/sessions/${me!.id}`, { method: 'DELETE' });
    expect(res.status).toBe(403);
  });
});

describe('signOutEverywhere', () => {
  it('ends every session of the user, this one included, and no one else', async () => {
    const user = await makeUser(t);
    const a = await signIn(user, 'A');
    const b = await signIn(user, 'B');
    const other = await signIn(await makeUser(t), 'C');
    const res = await a.json('POST', '/api/account/signout-everywhere');
    expect(res.status).toBe(204);
    expect(res.headers.getSetCookie().some((c) => c.startsWith('idp.sid=;'))).toBe(true);
    expect((await a.fetch('/api/account')).status).toBe(401);
    expect((await b.fetch('/api/account')).status).toBe(401);
    expect((await other.fetch('/api/account')).status).toBe(200);
    expect(await t.store.sessions.listUserSessions(user.id, t.clock.now())).toEqual([]);
  });

  it('needs the CSRF token and a signed-in user', async () => {
    const user = await makeUser(t);
    const a = await signIn(user, 'A');
    expect((await a.fetch('/api/account/signout-everywhere', { method: 'POST' })).status).toBe(403);
    expect((await a.fetch('/api/account')).status).toBe(200);
    expect((await new Agent(t).json('POST', '/api/account/signout-everywhere')).status).toBe(401);
  });
});
