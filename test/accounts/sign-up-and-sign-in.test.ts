/** Sign up, sign in, sign out (postSignUp, postSignIn, postSignOut, getSignIn, getSignUp) and getSession. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD_HASHING } from '../../src/accounts/passwords.js';
import { hashSecret } from '../../src/security/secrets.js';
import { Agent, makeUser, signedInAgent, startServer, type TestServer, TEST_PASSWORD } from '../helpers.js';
import { NOTHING } from '../../src/domain/security-events.js';

let t: TestServer;
beforeAll(async () => {
  t = await startServer({}, { limits: { signInIp: { points: 1000, seconds: 600 } } });
});
afterAll(async () => t?.close());

function cookieLine(res: Response, name: string): string | undefined {
  return res.headers.getSetCookie().find((l) => l.startsWith(`${name}=`));
}

describe('getSession', () => {
  it('answers a visitor with signed_in false and a CSRF token, not cached', async () => {
    const res = await new Agent(t).fetch('/api/session');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({ signed_in: false, csrf_token: expect.stringMatching(/^[\w-]+$/) });
  });

  it('names the signed-in user', async () => {
    const { agent, user } = await signedInAgent(t);
    expect(await (await agent.fetch('/api/session')).json()).toEqual({
      signed_in: true,
      user: { id: user.id, name: user.name },
      csrf_token: expect.any(String),
    });
  });
});

describe('getSignIn and getSignUp', () => {
  it('render their forms with a CSRF field, and set an HttpOnly, SameSite=Lax, signed CSRF cookie (no session: nothing is stored)', async () => {
    for (const path of ['/signin', '/signup']) {
      const res = await new Agent(t).fetch(`${path}?return_to=%2Fapps`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const body = await res.text();
      expect(body).toMatch(/<input type="hidden" name="_csrf" value="[\w-]+">/);
      expect(body).toContain('<input type="hidden" name="return_to" value="/apps">');
      expect(cookieLine(res, 'idp.csrf')).toMatch(/; path=\/; expires=.*; samesite=lax; httponly$/);
      expect(cookieLine(res, 'idp.csrf.sig')).toBeDefined();
      expect(cookieLine(res, 'idp.sid')).toBeUndefined();
    }
  });

  it('send a signed-in user on to return_to (or /account)', async () => {
    const { agent } = await signedInAgent(t);
    const res = await agent.fetch('/signin?return_to=%2Fgames');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/games');
    expect((await agent.fetch('/signup')).headers.get('location')).toBe('/account');
  });
});

describe('postSignUp', () => {
  it('creates the account and answers "check your mail" without signing in; the new name and password then sign in', async () => {
    const agent = new Agent(t);
    const name = `new_${process.pid}`;
    const res = await agent.form('/signup', { name, email: `${name}@Example.com`, password: 'a long password', return_to: '/apps' });
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).toContain(`<p id="sign-up-sent">We sent a mail to <strong>${name}@example.com</strong>. Follow its link to confirm the address.</p>`);
    expect(body).toContain('<a href="/signin?return_to=%2Fapps" id="sign-in-link">sign in</a>');
    expect(agent.cookies.has('idp.sid')).toBe(false);
    expect(((await (await agent.fetch('/api/session')).json()) as { signed_in: boolean }).signed_in).toBe(false);
    const stored = await t.store.users.getUserByName(name);
    expect(stored?.email).toBe(`${name}@example.com`);
    expect(stored?.passwordHash).toMatch(/^scrypt\$/);
    await agent.signIn({ name }, 'a long password');
    expect(((await (await agent.fetch('/api/session')).json()) as { user: { name: string } }).user.name).toBe(name);
  });

  it('answers a registered address exactly as a new one (status, headers, page) and creates nothing', async () => {
    const existing = await makeUser(t);
    const answer = async (email: string, name: string) => {
      const agent = new Agent(t);
      const res = await agent.form('/signup', { name, email, password: 'a long password' });
      const cookies = res.headers.getSetCookie().map((c) => c.split('=')[0]).sort();
      const body = (await res.text()).replaceAll(email.toLowerCase(), '<email>').replace(/value="[\w-]+"/g, 'value="<token>"').replace(/content="[\w-]+"/g, 'content="<token>"');
      return { status: res.status, type: res.headers.get('content-type'), cookies, body };
    };
    const fresh = await answer(`fresh_${process.pid}@example.com`, `fresh_${process.pid}`);
    const taken = await answer(existing.email.toUpperCase(), `taken_${process.pid}`);
    expect(taken).toEqual(fresh);
    expect(taken.status).toBe(200);
    expect(await t.store.users.getUserByName(`taken_${process.pid}`)).toBeUndefined();
    expect((await t.store.users.getUserByEmail(existing.email))!.id).toBe(existing.id);
  });

  it('a taken name is still said (409) even when the address is taken too', async () => {
    const existing = await makeUser(t);
    const res = await new Agent(t).form('/signup', { name: existing.name, email: existing.email, password: 'a long password' });
    expect(res.status).toBe(409);
    expect(await res.text()).toContain('<p class="error" id="error-message">Name is already taken</p>');
  });

  it('shows the form again with the reason: taken name 409, bad name 400, short password 400', async () => {
    const existing = await makeUser(t);
    const cases: [Record<string, string>, number, string][] = [
      [{ name: existing.name.toUpperCase(), email: 'other@example.com', password: 'password-1' }, 409, 'Name is already taken'],
      [{ name: 'ab', email: 'ab@example.com', password: 'password-1' }, 400, 'Name must be 3 to 28 characters of A-Z, a-z, 0-9, _ and -'],
      [{ name: 'fine_name', email: 'fine@example.com', password: 'short' }, 400, 'Password must be 8 to 256 characters'],
    ];
    for (const [fields, status, message] of cases) {
      const res = await new Agent(t).form('/signup', fields);
      expect(res.status).toBe(status);
      const body = await res.text();
      expect(body).toContain(`<p class="error" id="error-message">${message}</p>`);
      expect(body).toContain(`value="${fields.email}"`);
    }
  });

  it('refuses a form without the CSRF token with a 403 error page', async () => {
    const res = await new Agent(t).fetch('/signup', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'name=csrf_less&email=c@example.com&password=password-1',
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await res.text()).toContain('<p class="error" id="error-message">Invalid CSRF token</p>');
    expect(await t.store.users.getUserByName('csrf_less')).toBeUndefined();
  });
});

describe('postSignIn', () => {
  it('signs in by name or email under a new session id, and follows a local return_to only', async () => {
    const user = await makeUser(t);
    const agent = new Agent(t);
    // A visitor's session exists once a flow needs one: here a passkey sign-in begun.
    expect((await agent.json('POST', '/api/session/passkey/options')).status).toBe(200);
    const before = agent.cookies.get('idp.sid');
    expect(before).toBeDefined();
    const res = await agent.form('/signin', { name: user.email, password: TEST_PASSWORD, return_to: '/apps' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/apps');
    expect(agent.cookies.get('idp.sid')).not.toBe(before);
    // The visitor's session id from before sign-in is not signed in (no session fixation).
    const old = new Agent(t);
    old.cookies.set('idp.sid', before!);
    old.cookies.set('idp.sid.sig', agent.cookies.get('idp.sid.sig')!);
    expect(((await (await old.fetch('/api/session')).json()) as { signed_in: boolean }).signed_in).toBe(false);

    const other = new Agent(t);
    const offsite = await other.form('/signin', { name: user.name, password: TEST_PASSWORD, return_to: '//evil.example/x' });
    expect(offsite.headers.get('location')).toBe('/account');
  });

  it('keeps only a hash of the session id in the store', async () => {
    const { agent } = await signedInAgent(t);
    const sid = agent.cookies.get('idp.sid')!;
    expect(await t.store.sessions.getSession(sid, t.clock.now())).toBeUndefined();
    expect(JSON.parse((await t.store.sessions.getSession(hashSecret(sid), t.clock.now()))!)).toMatchObject({ userId: expect.any(Number) });
  });

  it("records whose a session is, so all of a user's sessions can be ended together (except one)", async () => {
    const user = await makeUser(t);
    const other = await makeUser(t);
    const agents = [new Agent(t), new Agent(t), new Agent(t)];
    for (const a of agents) await a.signIn(user);
    const bystander = new Agent(t);
    await bystander.signIn(other);
    const signedIn = async (a: Agent) => ((await (await a.fetch('/api/session')).json()) as { signed_in: boolean }).signed_in;
    const keep = hashSecret(agents[0]!.cookies.get('idp.sid')!);
    expect((await t.store.securityEvents.recordSecurityEvent({ userId: user.id, keepSessionIdHash: keep }, { ...NOTHING, sessions: 'others' }, t.clock.now()))?.sessions).toBe(2);
    expect(await Promise.all([...agents, bystander].map(signedIn))).toEqual([true, false, false, true]);
    expect((await t.store.securityEvents.recordSecurityEvent({ userId: user.id }, { ...NOTHING, sessions: 'all' }, t.clock.now()))?.sessions).toBe(1);
    expect(await Promise.all([...agents, bystander].map(signedIn))).toEqual([false, false, false, true]);
  });

  it('says 401 "Wrong name or password" for a wrong password and for an unknown name alike', async () => {
    const user = await makeUser(t);
    for (const name of [user.name, 'nobody_here']) {
      const res = await new Agent(t).form('/signin', { name, password: 'not the password' });
      expect(res.status).toBe(401);
      const body = await res.text();
      expect(body).toContain('<p class="error" id="error-message">Wrong name or password</p>');
      expect(body).toContain(`value="${name}"`);
    }
  });
});

describe('postSignOut', () => {
  it('ends the session and goes home; the old cookie is signed out', async () => {
    const { agent } = await signedInAgent(t);
    const cookies = agent.cookieHeader();
    const res = await agent.form('/signout', {});
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/');
    const replay = await fetch(`${t.baseUrl}/api/account`, { headers: { Cookie: cookies } });
    expect(replay.status).toBe(401);
    expect(await replay.json()).toEqual({ message: 'Sign in first' });
  });
});

describe('rate limits', () => {
  it('locks an account after 3 failed sign-ins (even for the right password), with Retry-After', async () => {
    const s = await startServer({}, { limits: { signInAccount: { points: 3, seconds: 600 } } });
    try {
      const user = await makeUser(s);
      for (let i = 0; i < 3; i++) expect((await new Agent(s).form('/signin', { name: user.name, password: 'wrong password' })).status).toBe(401);
      const locked = await new Agent(s).form('/signin', { name: user.name, password: TEST_PASSWORD });
      expect(locked.status).toBe(429);
      expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(500);
      expect(await locked.text()).toMatch(/Too many attempts, retry in \d+ seconds/);
      // Another account is not affected.
      await new Agent(s).signIn(await makeUser(s));
    } finally {
      await s.close();
    }
  });

  it('limits sign-in attempts and sign-ups per client address', async () => {
    const s = await startServer({}, { limits: { signInIp: { points: 2, seconds: 600 }, signUpIp: { points: 1, seconds: 600 } } });
    try {
      const user = await makeUser(s);
      await new Agent(s).signIn(user);
      await new Agent(s).signIn(user);
      expect((await new Agent(s).form('/signin', { name: user.name, password: TEST_PASSWORD })).status).toBe(429);
      expect((await new Agent(s).form('/signup', { name: 'first_one', email: 'f@example.com', password: 'password-1' })).status).toBe(200);
      const second = await new Agent(s).form('/signup', { name: 'second_one', email: 's@example.com', password: 'password-1' });
      expect(second.status).toBe(429);
      expect(await s.store.users.getUserByName('second_one')).toBeUndefined();
    } finally {
      await s.close();
    }
  });
});

describe('the cost of a password hash', () => {
  it("the service hashes a new password at scrypt N=2^15, r=8, p=1 (test servers inject a lower cost; this one runs the service's)", async () => {
    const real = await startServer({}, { passwordHashing: PASSWORD_HASHING });
    try {
      const agent = new Agent(real);
      const res = await agent.form('/signup', { name: 'cost_check', email: 'cost_check@example.com', password: 'correct horse battery' });
      expect(res.status).toBe(200);
      const user = (await real.store.users.getUserByName('cost_check'))!;
      expect(user.passwordHash).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
      await agent.signIn(user, 'correct horse battery');
    } finally {
      await real.close();
    }
    // A test server's own sign-ups are cheaper, and sign in all the same.
    const agent = new Agent(t);
    expect((await agent.form('/signup', { name: 'cheap_hash', email: 'cheap_hash@example.com', password: 'correct horse battery' })).status).toBe(200);
    expect((await t.store.users.getUserByName('cheap_hash'))!.passwordHash).toMatch(/^scrypt\$1024\$8\$1\$/);
    await agent.signIn({ name: 'cheap_hash' }, 'correct horse battery');
  });
});
