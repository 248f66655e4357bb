/**
 * The authenticator app as a second factor: setup needs a valid code, codes are taken once,
 * recovery codes work once and a new set voids the old, switching off needs the password, and a
 * sign-in that owes its second step has no access anywhere.
 */
import { TOTP, URI } from 'otpauth';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, makeClient, signedInAgent, startServer, TEST_PASSWORD, type TestServer } from '../helpers.js';

let t: TestServer;
beforeAll(async () => {
  // Many attempts from one address: only the per-account limit is under test here.
  t = await startServer({}, { limits: { signInIp: { points: 1000, seconds: 600 } } });
});
afterAll(async () => t?.close());

const WRONG_CODE = 'That code is not right, or it was used already';

/** The code the app shows at the test clock's time (plus `ms`). */
function codeOf(totp: TOTP, ms = 0): string {
  return totp.generate({ timestamp: t.clock.now() + ms });
}

/** A signed-in user with the authenticator app switched on. */
async function withAuthenticator(): Promise<{ agent: Agent; user: { id: number; name: string }; totp: TOTP; recoveryCodes: string[] }> {
  const { agent, user } = await signedInAgent(t);
  const setup = await agent.json('POST', '/api/account/totp', { password: TEST_PASSWORD });
  expect(setup.status).toBe(200);
  const { uri } = (await setup.json()) as { uri: string };
  const totp = URI.parse(uri) as TOTP;
  const confirm = await agent.json('POST', '/api/account/totp/confirm', { code: codeOf(totp) });
  expect(confirm.status).toBe(200);
  const { recovery_codes: recoveryCodes } = (await confirm.json()) as { recovery_codes: string[] };
  // The step of the setup's code is used up: sign-ins take the next one.
  t.clock.advance(30_000);
  return { agent, user, totp, recoveryCodes };
}

/** Signs in with the password, leaving the second step owed; returns the agent. */
async function halfSignedIn(user: { name: string }, returnTo?: string): Promise<Agent> {
  const agent = new Agent(t);
  const res = await agent.form('/signin', { name: user.name, password: TEST_PASSWORD, ...(returnTo ? { return_to: returnTo } : {}) });
  expect([res.status, res.headers.get('location')]).toEqual([303, '/signin/otp']);
  return agent;
}

describe('setting up an authenticator app', () => {
  it('switches on only with a current code of the new secret; the secret and the recovery codes are not stored in the clear', async () => {
    const { agent, user } = await signedInAgent(t);
    expect(await (await agent.fetch('/api/account/totp')).json()).toEqual({ enabled: false, recovery_codes_left: 0 });
    const early = await agent.json('POST', '/api/account/totp/confirm', { code: '123456' });
    expect([early.status, await early.json()]).toEqual([409, { message: 'Start setting up an authenticator app first' }]);

    const setup = await agent.json('POST', '/api/account/totp', { password: TEST_PASSWORD });
    expect(setup.status).toBe(200);
    expect(setup.headers.get('cache-control')).toBe('no-store');
    const body = (await setup.json()) as { uri: string; qr_image: string };
    const totp = URI.parse(body.uri) as TOTP;
    expect(totp).toBeInstanceOf(TOTP);
    // The app lists the account under the service's name, not the host name ("localhost").
    expect([totp.issuer, totp.label, totp.algorithm, totp.digits, totp.period]).toEqual(['Identity', user.name, 'SHA1', 6, 30]);
    expect(body.uri).toMatch(/^otpauth:\/\/totp\/Identity:[^?]+\?issuer=Identity&/);
    expect(body.qr_image).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(Buffer.from(body.qr_image.split(',')[1]!, 'base64').toString()).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    const row = (await t.store.authenticatorApp.getTotp(user.id))!;
    expect(row.confirmedAt).toBeNull();
    expect(row.secretJwe).not.toContain(totp.secret.base32);
    expect(row.secretJwe.split('.')).toHaveLength(5);

    // Signing in still asks for the password alone while the setup waits.
    await new Agent(t).signIn(user);
    const wrong = await agent.json('POST', '/api/account/totp/confirm', { code: codeOf(totp, 5 * 60_000) });
    expect([wrong.status, await wrong.json()]).toEqual([400, { message: 'That code is not right: type the 6 digits the app shows now' }]);
    expect((await agent.json('POST', '/api/account/totp/confirm', { code: 'abcdef' })).status).toBe(400);

    const confirm = await agent.json('POST', '/api/account/totp/confirm', { code: codeOf(totp) });
    expect(confirm.status).toBe(200);
    const { recovery_codes: recoveryCodes } = (await confirm.json()) as { recovery_codes: string[] };
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    for (const c of recoveryCodes) expect(c).toMatch(/^[a-hjkmnp-z2-9]{5}-[a-hjkmnp-z2-9]{5}$/);
    expect(await (await agent.fetch('/api/account/totp')).json()).toEqual({ enabled: true, recovery_codes_left: 10 });
    const again = await agent.json('POST', '/api/account/totp', { password: TEST_PASSWORD });
    expect([again.status, await again.json()]).toEqual([409, { message: 'An authenticator app is already switched on; switch it off first' }]);
    const confirmed = await agent.json('POST', '/api/account/totp/confirm', { code: codeOf(totp) });
    expect(confirmed.status).toBe(409);
    expect((await t.store.authenticatorApp.getTotp(user.id))!.secretJwe).toBe(row.secretJwe);
  });

  it('needs a signed-in session and the CSRF token', async () => {
    expect((await new Agent(t).json('POST', '/api/account/totp')).status).toBe(401);
    expect((await new Agent(t).fetch('/api/account/totp')).status).toBe(401);
    const { agent } = await signedInAgent(t);
    const noCsrf = await agent.fetch('/api/account/totp', { method: 'POST' });
    expect([noCsrf.status, await noCsrf.json()]).toEqual([403, { message: 'Invalid CSRF token' }]);
  });
});

describe('the second step of sign-in', () => {
  it('owes a code after the password: until then /account, /oauth, the game flow and the JSON calls treat the browser as signed out', async () => {
    const { user, totp } = await withAuthenticator();
    const agent = await halfSignedIn(user);
    expect((await agent.fetch('/api/account')).status).toBe(401);
    expect((await agent.json('POST', '/api/account/totp')).status).toBe(401);
    expect((await agent.json('POST', '/api/account/signout-everywhere')).status).toBe(401);
    expect((await agent.json('POST', '/api/games/1/codes', { client_id: 'abc', scopes: ['userinfo'] })).status).toBe(401);
    const account = await agent.fetch('/account');
    expect([account.status, account.headers.get('location')]).toEqual([303, '/signin?return_to=%2Faccount']);
    const client = await makeClient(t, user.id);
    const query = `client_id=${client.clientId}&redirect_uri=${encodeURIComponent(client.redirectUri)}&scope=userinfo&response_type=code`;
    const oauth = await agent.fetch(`/oauth?${query}`);
    expect([oauth.status, oauth.headers.get('location')]).toEqual([302, `/signin?return_to=${encodeURIComponent(`/oauth?${query}`)}`]);
    expect(await (await agent.fetch('/api/session')).json()).toMatchObject({ signed_in: false });

    const page = await agent.fetch('/signin/otp');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<input id="otp" name="otp"');

    const wrong = await agent.form('/signin/otp', { otp: codeOf(totp, 10 * 60_000) });
    expect(wrong.status).toBe(401);
    const wrongPage = await wrong.text();
    expect(wrongPage).toContain(`<p class="error" id="error-message" role="alert">${WRONG_CODE.replace(',', ',')}</p>`);
    expect((await agent.fetch('/api/account')).status).toBe(401);

    const right = await agent.form('/signin/otp', { otp: codeOf(totp) });
    expect([right.status, right.headers.get('location')]).toEqual([303, '/account']);
    expect((await agent.fetch('/api/account')).status).toBe(200);
    // Done: the step is no longer owed.
    expect((await agent.fetch('/signin/otp')).headers.get('location')).toBe('/signin');
  });

  it('takes a code once: the same code in another sign-in is refused, the next step\'s code works', async () => {
    const { user, totp } = await withAuthenticator();
    const code = codeOf(totp);
    const first = await halfSignedIn(user);
    expect((await first.form('/signin/otp', { otp: code })).status).toBe(303);
    const replay = await halfSignedIn(user);
    const refused = await replay.form('/signin/otp', { otp: code });
    expect(refused.status).toBe(401);
    expect(await refused.text()).toContain(WRONG_CODE);
    t.clock.advance(30_000);
    expect((await replay.form('/signin/otp', { otp: codeOf(totp) })).status).toBe(303);
  });

  it('goes to the return_to of the sign-in form', async () => {
    const { user, totp } = await withAuthenticator();
    const agent = await halfSignedIn(user, '/games');
    const res = await agent.form('/signin/otp', { otp: codeOf(totp) });
    expect([res.status, res.headers.get('location')]).toEqual([303, '/games']);
  });

  it('expires after 5 minutes: the password is asked again', async () => {
    const { user, totp } = await withAuthenticator();
    const agent = await halfSignedIn(user);
    t.clock.advance(5 * 60_000);
    const late = await agent.form('/signin/otp', { otp: codeOf(totp) });
    expect(late.status).toBe(401);
    expect(await late.text()).toContain('This sign-in took too long or was not started: start over with your password');
    expect((await agent.fetch('/signin/otp')).headers.get('location')).toBe('/signin');
    expect((await agent.fetch('/api/account')).status).toBe(401);
    // Without any sign-in started, the same.
    expect((await new Agent(t).form('/signin/otp', { otp: '123456' })).status).toBe(401);
  });

  it('counts wrong codes against the account, apart from passwords: after 10, even a right code is refused (429), and the password is not', async () => {
    const { user, totp } = await withAuthenticator();
    // Five wrong codes end a step (test/accounts/second-factor-attacks.test.ts): two steps of five, then a third.
    for (let step = 0; step < 2; step++) {
      const agent = await halfSignedIn(user);
      for (let i = 0; i < 5; i++) expect((await agent.form('/signin/otp', { otp: String(100000 + step * 10 + i) })).status).toBe(401);
    }
    const agent = await halfSignedIn(user);
    const locked = await agent.form('/signin/otp', { otp: codeOf(totp) });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await locked.text()).toMatch(/Too many attempts, retry in \d+ seconds/);
  });
});

describe('recovery codes', () => {
  it('each works once (case, spaces and dashes do not matter); a new set, with the password, voids the old', async () => {
    const { agent, user, recoveryCodes } = await withAuthenticator();
    const [first, second, third] = recoveryCodes as [string, string, string];
    const a = await halfSignedIn(user);
    expect((await a.form('/signin/otp', { otp: ` ${first.toUpperCase()} ` })).status).toBe(303);
    expect((await a.fetch('/api/account')).status).toBe(200);
    const b = await halfSignedIn(user);
    expect((await b.form('/signin/otp', { otp: first })).status).toBe(401);
    expect((await b.form('/signin/otp', { otp: second.replace('-', '') })).status).toBe(303);
    expect(await (await agent.fetch('/api/account/totp')).json()).toEqual({ enabled: true, recovery_codes_left: 8 });

    const wrong = await agent.json('POST', '/api/account/recovery-codes', { password: 'wrong password' });
    expect([wrong.status, await wrong.json()]).toEqual([403, { message: 'The password is wrong' }]);
    const fresh = await agent.json('POST', '/api/account/recovery-codes', { password: TEST_PASSWORD });
    expect(fresh.status).toBe(200);
    const { recovery_codes: next } = (await fresh.json()) as { recovery_codes: string[] };
    expect(next).toHaveLength(10);
    expect(next).not.toContain(third);
    expect(await (await agent.fetch('/api/account/totp')).json()).toEqual({ enabled: true, recovery_codes_left: 10 });
    const c = await halfSignedIn(user);
    expect((await c.form('/signin/otp', { otp: third })).status).toBe(401);
    expect((await c.form('/signin/otp', { otp: next[0]! })).status).toBe(303);
  });

  it('cannot be made without an authenticator app', async () => {
    const { agent } = await signedInAgent(t);
    const res = await agent.json('POST', '/api/account/recovery-codes', { password: TEST_PASSWORD });
    expect([res.status, await res.json()]).toEqual([409, { message: 'Switch on an authenticator app first' }]);
  });
});

describe('switching the authenticator app off', () => {
  it('needs the password; then the password alone signs in again and the codes are gone', async () => {
    const { agent, user, recoveryCodes } = await withAuthenticator();
    const wrong = await agent.json('DELETE', '/api/account/totp', { password: 'wrong password' });
    expect([wrong.status, await wrong.json()]).toEqual([403, { message: 'The password is wrong' }]);
    const missing = await agent.json('DELETE', '/api/account/totp', {});
    expect([missing.status, await missing.json()]).toEqual([400, { message: 'Body field password is required' }]);
    expect((await agent.json('DELETE', '/api/account/totp', { password: TEST_PASSWORD })).status).toBe(204);
    expect(await (await agent.fetch('/api/account/totp')).json()).toEqual({ enabled: false, recovery_codes_left: 0 });
    const res = await new Agent(t).form('/signin', { name: user.name, password: TEST_PASSWORD });
    expect([res.status, res.headers.get('location')]).toEqual([303, '/account']);
    expect(await t.store.authenticatorApp.getTotp(user.id)).toBeUndefined();
    expect(await t.store.authenticatorApp.useRecoveryCode(user.id, recoveryCodes[0]!, t.clock.now())).toBe(false);
    const again = await agent.json('DELETE', '/api/account/totp', { password: TEST_PASSWORD });
    expect([again.status, await again.json()]).toEqual([409, { message: 'No authenticator app is switched on' }]);
  });

  it('goes with the account when it is deleted', async () => {
    const { agent, user } = await withAuthenticator();
    const res = await agent.json('POST', '/api/account/deletion', { password: TEST_PASSWORD, confirm: user.name });
    expect(res.status).toBe(204);
    expect(await t.store.authenticatorApp.getTotp(user.id)).toBeUndefined();
    expect(await t.store.authenticatorApp.countRecoveryCodes(user.id)).toBe(0);
  });
});

describe('a seed no SESSION_SECRET value opens', () => {
  it('answers a 6-digit code with 503: the page says what is lost and takes a recovery code in its form, which signs in; the log says so without the seed', async () => {
    const { user, totp, recoveryCodes } = await withAuthenticator();
    const agent = await halfSignedIn(user);
    const { config, logger } = t.app.deps;
    const lines: string[] = [];
    // Every value that sealed the seed is gone (cookies are signed with the keys the app started with).
    t.app.deps.config = { ...config, sessionSecrets: ['another-session-secret-of-32-characters'] };
    t.app.deps.logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    try {
      const res = await agent.form('/signin/otp', { otp: codeOf(totp) });
      expect([res.status, res.headers.get('content-type'), res.headers.get('cache-control')]).toEqual([503, 'text/html; charset=utf-8', 'no-store']);
      const page = await res.text();
      expect(page).toContain(
        '<p class="error" id="error-message" role="alert">Your authenticator app&#39;s codes cannot be checked any more: the key this service protected the app&#39;s secret with has changed, so that secret can no longer be read. A recovery code still works: type one below. Once signed in, switch the authenticator app off and set it up again on your account page.</p>',
      );
      expect(page).toMatch(/<form method="post" action="\/signin\/otp" class="stack">\n<input type="hidden" name="_csrf" value="[^"]+">\n<label>Recovery code <input id="otp" name="otp" autocomplete="off" [^>]*aria-describedby="error-message"><\/label>\n<button type="submit">Sign in<\/button>\n<\/form>/);
      const warned = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.reason === 'seed_unreadable');
      expect(warned.map(({ level, userId, reason, msg }) => ({ level, userId, reason, msg }))).toEqual([
        {
          level: 40,
          userId: user.id,
          reason: 'seed_unreadable',
          msg: 'authenticator app seed unreadable: no SESSION_SECRET key opens it (the key changed); its codes cannot be checked, recovery codes still sign in, and the app must be set up again',
        },
      ]);
      const row = (await t.store.authenticatorApp.getTotp(user.id))!;
      expect(lines.join('\n')).not.toContain(row.secretJwe);
      expect(lines.join('\n')).not.toContain(totp.secret.base32);
      // The page's own form, as sent: a recovery code goes on to the account.
      const csrf = /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
      const ok = await agent.form('/signin/otp', { otp: recoveryCodes[0]!, _csrf: csrf });
      expect([ok.status, ok.headers.get('location')]).toEqual([303, '/account']);
    } finally {
      t.app.deps.config = config;
      t.app.deps.logger = logger;
    }
  });
});
