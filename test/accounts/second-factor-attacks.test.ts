/**
 * The second factor as an attacker tries it (issue 36), against the real server on this run's
 * database: code guessing around the password's lock, bursts of parallel guesses, client addresses
 * spread over an IPv6 /64, a stolen session adding or removing a factor, sessions from before the
 * authenticator app was switched on, and recovery codes in a copy of the database.
 */
import { TOTP, URI } from 'otpauth';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RECOVERY_CODE_HASHING, type ScryptParams } from '../../src/accounts/passwords.js';
import { upgradeRecoveryCodes } from '../../src/accounts/second-factor.js';
import type { AuditEvent, AuditFields } from '../../src/audit.js';
import { hashSecret } from '../../src/security/secrets.js';
import { SoftAuthenticator } from '../fixtures/soft-authenticator.js';
import { Agent, makeUser, signedInAgent, startServer, TEST_PASSWORD, type TestServer } from '../helpers.js';

let t: TestServer;
let events: { event: AuditEvent; fields: AuditFields }[] = [];
beforeAll(async () => {
  // Every client comes through a trusted proxy, so each test picks its addresses; the per-address
  // limit is wide unless a test is about it.
  t = await startServer({ TRUST_PROXY: '127.0.0.1' }, { limits: { signInIp: { points: 10_000, seconds: 600 } } });
  t.app.deps.audit = (event, fields) => events.push({ event, fields });
});
beforeEach(() => {
  events = [];
});
afterAll(async () => t?.close());

const WRONG_CODE = 'That code is not right, or it was used already';
const STEP_ENDED = 'Too many wrong codes: sign in again with your password';
const GONE = 'This sign-in took too long or was not started: start over with your password';
const body = async (res: Response): Promise<unknown> => [res.status, await res.json()];
let addresses = 0;
/** A client address of its own (TEST-NET-3, then counting up). */
const newAddress = (): string => `203.0.${113 + Math.floor(++addresses / 250)}.${addresses % 250}`;

/** A signed-in user with the authenticator app switched on (its setup's code step used up). */
async function withAuthenticator(): Promise<{ agent: Agent; user: { id: number; name: string }; totp: TOTP; recoveryCodes: string[] }> {
  const { agent, user } = await signedInAgent(t);
  const { uri } = (await (await agent.json('POST', '/api/account/totp', { password: TEST_PASSWORD })).json()) as { uri: string };
  const totp = URI.parse(uri) as TOTP;
  const on = await agent.json('POST', '/api/account/totp/confirm', { code: totp.generate({ timestamp: t.clock.now() }) });
  expect(on.status).toBe(200);
  t.clock.advance(30_000);
  return { agent, user, totp, recoveryCodes: ((await on.json()) as { recovery_codes: string[] }).recovery_codes };
}

/** A form POST from `ip` (X-Forwarded-For through the trusted proxy). */
async function formFrom(agent: Agent, ip: string, path: string, fields: Record<string, string>, csrf?: string): Promise<Response> {
  const form = new URLSearchParams({ _csrf: csrf ?? (await agent.csrf()), ...fields });
  return agent.fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': ip }, body: form.toString() });
}

/** The password sign-in from a fresh browser at a fresh address, owing the second step. */
async function halfSignedIn(user: { name: string }): Promise<Agent> {
  const agent = new Agent(t);
  const res = await formFrom(agent, newAddress(), '/signin', { name: user.name, password: TEST_PASSWORD });
  expect([res.status, res.headers.get('location')]).toEqual([303, '/signin/otp']);
  return agent;
}

/** The error a form page shows. */
async function errorOf(res: Response): Promise<string | undefined> {
  return /<p class="error" id="error-message" role="alert">([^<]*)<\/p>/.exec(await res.text())?.[1];
}

describe('guessing authenticator codes (finding 1)', () => {
  it('ends an owed second step after 5 wrong codes: the 6th attempt, even right, asks for the password again', async () => {
    const { user, totp } = await withAuthenticator();
    const agent = await halfSignedIn(user);
    for (let i = 0; i < 5; i++) {
      const res = await formFrom(agent, newAddress(), '/signin/otp', { otp: String(100000 + i) });
      expect([res.status, await errorOf(res)]).toEqual([401, WRONG_CODE]);
    }
    const ended = await formFrom(agent, newAddress(), '/signin/otp', { otp: totp.generate({ timestamp: t.clock.now() }) });
    expect([ended.status, await errorOf(ended)]).toEqual([401, STEP_ENDED]);
    const page = await agent.fetch('/signin/otp');
    expect([page.status, page.headers.get('location')]).toEqual([303, '/signin']);
    expect((await agent.fetch('/api/account')).status).toBe(401);
    expect(events.filter((e) => e.event === 'sign_in_failed').map((e) => (e.fields as { reason: string }).reason)).toEqual([
      ...Array<string>(5).fill('wrong_code'),
      'step_exhausted',
    ]);
  });

  it('never lets a right password reset the count of wrong codes: 10 per account an hour, whatever the addresses', async () => {
    const { user, totp } = await withAuthenticator();
    // The attack of the finding: a few wrong codes, then the password again for a fresh step,
    // each request from a new address. Before, every right password wiped the count.
    const statuses: number[] = [];
    for (let round = 0; round < 4; round++) {
      const agent = await halfSignedIn(user);
      for (let i = 0; i < 3; i++) statuses.push((await formFrom(agent, newAddress(), '/signin/otp', { otp: String(200000 + round * 10 + i) })).status);
    }
    expect(statuses).toEqual([...Array<number>(10).fill(401), 429, 429]);
    // The password still works (it is not the one being guessed) but the code, even right, waits.
    const agent = await halfSignedIn(user);
    const locked = await formFrom(agent, newAddress(), '/signin/otp', { otp: totp.generate({ timestamp: t.clock.now() }) });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(3000);
    expect(await errorOf(locked)).toMatch(/^Too many attempts, retry in \d+ seconds$/);
  });

  it('counts every IPv6 address of one /64 as one client address', async () => {
    const small = await startServer({ TRUST_PROXY: '127.0.0.1' }, { limits: { signInIp: { points: 3, seconds: 600 } } });
    try {
      const attempt = async (ip: string): Promise<number> => (await formFrom(new Agent(small), ip, '/signin', { name: 'nobody', password: 'wrong password' })).status;
      expect([await attempt('2001:db8:1:2::1'), await attempt('2001:db8:1:2::2'), await attempt('2001:db8:1:2:ffff::3')]).toEqual([401, 401, 401]);
      expect(await attempt('2001:db8:1:2:abcd:ef01:2345:6789')).toBe(429);
      // The next /64 is another client; an IPv4-mapped address is its IPv4 address.
      expect(await attempt('2001:db8:1:3::1')).toBe(401);
      expect([await attempt('198.51.100.4'), await attempt('::ffff:198.51.100.4'), await attempt('::ffff:c633:6404')]).toEqual([401, 401, 401]);
      expect(await attempt('198.51.100.4')).toBe(429);
    } finally {
      await small.close();
    }
  });
});

describe('parallel bursts of guesses (finding 3)', () => {
  it('checks at most 10 passwords of 40 sent at once from 40 addresses, the right one last; the rest are 429 unchecked', async () => {
    const user = await makeUser(t);
    // Each attempt from its own browser and address, prepared first so the 40 leave together.
    const agents = await Promise.all(Array.from({ length: 40 }, async () => {
      const agent = new Agent(t);
      return { agent, csrf: await agent.csrf(), ip: newAddress() };
    }));
    events = [];
    const results = await Promise.all(
      agents.map(({ agent, csrf, ip }, i) => formFrom(agent, ip, '/signin', { name: user.name, password: i === 39 ? TEST_PASSWORD : `wrong password ${i}` }, csrf)),
    );
    const statuses = results.map((r) => r.status);
    const checked = statuses.filter((s) => s !== 429).length;
    expect(checked).toBe(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30);
    const wrong = events.filter((e) => e.event === 'sign_in_failed' && (e.fields as { reason: string }).reason === 'wrong_password');
    expect(wrong.length).toBe(statuses.filter((s) => s === 401).length);
    expect(wrong.length).toBeLessThanOrEqual(10);
  });

  it('checks at most 5 codes of 20 sent at once in one owed step, and the step ends', async () => {
    const { user } = await withAuthenticator();
    const agent = await halfSignedIn(user);
    const csrf = await agent.csrf();
    events = [];
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => formFrom(agent, newAddress(), '/signin/otp', { otp: String(300000 + i) }, csrf)));
    const errors = await Promise.all(results.map(async (r) => [r.status, await errorOf(r)]));
    expect(errors.filter(([, e]) => e === WRONG_CODE)).toHaveLength(5);
    // The rest are refused unchecked: over the step's limit, or after the step ended (the session
    // they read no longer owes one).
    const rest = errors.filter(([, e]) => e !== WRONG_CODE);
    expect(new Set(rest.map(([status]) => status))).toEqual(new Set([401]));
    expect(rest.every(([, e]) => e === STEP_ENDED || e === GONE)).toBe(true);
    expect(rest.filter(([, e]) => e === STEP_ENDED).length).toBeGreaterThan(0);
    expect(events.filter((e) => (e.fields as { reason?: string }).reason === 'wrong_code')).toHaveLength(5);
  });

  it('checks at most 10 passwords of 30 sent at once to confirm a factor change from a stolen session', async () => {
    const { agent, user } = await withAuthenticator();
    const csrf = await agent.csrf();
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        agent.fetch('/api/account/totp', { method: 'DELETE', headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf }, body: JSON.stringify({ password: `guess ${i}` }) }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([...Array<number>(10).fill(403), ...Array<number>(20).fill(429)]);
    // The owner's password now waits too: the lock counts guesses, whoever makes them.
    expect((await agent.json('DELETE', '/api/account/totp', { password: TEST_PASSWORD })).status).toBe(429);
    expect(await t.store.authenticatorApp.getTotp(user.id)).toMatchObject({ confirmedAt: expect.any(Number) as number });
  });
});

describe('a stolen session and the factors (finding 2)', () => {
  const key = (): SoftAuthenticator => {
    const url = new URL(t.config.publicUrl);
    return new SoftAuthenticator({ rpId: url.hostname, origin: url.origin });
  };

  it('cannot add a passkey or set up an authenticator app without the password', async () => {
    const { agent, user } = await signedInAgent(t);
    const missing = [400, { message: 'Body field password is required' }];
    expect(await body(await agent.json('POST', '/api/account/passkeys/options'))).toEqual(missing);
    expect(await body(await agent.json('POST', '/api/account/passkeys/options', { password: 'a guess' }))).toEqual([403, { message: 'The password is wrong' }]);
    // Without options there is no challenge: an answer made up for any challenge is refused.
    const forged = key().register({ challenge: 'AAAA', user: { id: Buffer.from(String(user.id)).toString('base64url') } });
    expect(await body(await agent.json('POST', '/api/account/passkeys', { credential: forged }))).toEqual([
      400,
      { message: 'No passkey registration is under way (or it expired): start again' },
    ]);
    expect(await body(await agent.json('POST', '/api/account/totp'))).toEqual(missing);
    expect(await body(await agent.json('POST', '/api/account/totp', { password: 'a guess' }))).toEqual([403, { message: 'The password is wrong' }]);
    expect(await t.store.passkeys.listPasskeys(user.id)).toEqual([]);
    expect(await t.store.authenticatorApp.getTotp(user.id)).toBeUndefined();
  });

  it('cannot remove any passkey without the password or a recent passkey confirmation, with the authenticator app on too', async () => {
    const { agent, user } = await withAuthenticator();
    const ids: number[] = [];
    for (let i = 0; i < 2; i++) {
      const options = (await (await agent.json('POST', '/api/account/passkeys/options', { password: TEST_PASSWORD })).json()) as { challenge: string; user: { id: string } };
      ids.push(((await (await agent.json('POST', '/api/account/passkeys', { credential: key().register(options) })).json()) as { id: number }).id);
    }
    expect(await body(await agent.json('DELETE', `/api/account/passkeys/${ids[0]}`))).toEqual([400, { message: 'Body field password is required' }]);
    expect(await body(await agent.json('DELETE', `/api/account/passkeys/${ids[0]}`, { password: 'a guess' }))).toEqual([403, { message: 'The password is wrong' }]);
    expect((await t.store.passkeys.listPasskeys(user.id)).map((p) => p.id)).toEqual(ids);
    expect((await agent.json('DELETE', `/api/account/passkeys/${ids[0]}`, { password: TEST_PASSWORD })).status).toBe(204);
    expect(events.filter((e) => e.event === 'passkey_removed')).toHaveLength(1);
  });
});

describe('switching the authenticator app on (finding 4)', () => {
  it("signs out the account's other sessions, keeps this one, and says how many", async () => {
    const user = await makeUser(t);
    const [owner, laptop, thief] = [new Agent(t), new Agent(t), new Agent(t)];
    for (const a of [owner, laptop, thief]) await a.signIn(user);
    const { uri } = (await (await owner.json('POST', '/api/account/totp', { password: TEST_PASSWORD })).json()) as { uri: string };
    const totp = URI.parse(uri) as TOTP;
    events = [];
    const on = await owner.json('POST', '/api/account/totp/confirm', { code: totp.generate({ timestamp: t.clock.now() }) });
    expect(on.status).toBe(200);
    expect(((await on.json()) as { ended_sessions: number }).ended_sessions).toBe(2);
    expect([(await owner.fetch('/api/account')).status, (await laptop.fetch('/api/account')).status, (await thief.fetch('/api/account')).status]).toEqual([200, 401, 401]);
    expect(events.find((e) => e.event === 'second_factor_changed')?.fields).toEqual({ userId: user.id, change: 'totp_enabled', endedSessions: 2 });
    const page = await (await owner.fetch('/account')).text();
    expect(page).toContain('<small>Switching it on signs you out on every other device and browser: they were signed in without a code.</small>');
  });
});

describe('recovery codes in a copy of the database (finding 5)', () => {
  // The subject is the cost: these sets are hashed at the service's, not the test servers' lower one.
  let testCost: ScryptParams;
  beforeAll(() => {
    testCost = t.app.deps.recoveryCodeHashing;
    t.app.deps.recoveryCodeHashing = RECOVERY_CODE_HASHING;
  });
  afterAll(() => {
    t.app.deps.recoveryCodeHashing = testCost;
  });

  it('are stored as scrypt under one salt per set, never as a plain SHA-256', async () => {
    const { user, recoveryCodes } = await withAuthenticator();
    const stored = await t.store.authenticatorApp.listRecoveryCodeHashes(user.id);
    expect(stored).toHaveLength(10);
    const salts = new Set(stored.map((h) => h.split('$').slice(0, 5).join('$')));
    expect([...salts]).toEqual([expect.stringMatching(/^scrypt\$16384\$8\$1\$[A-Za-z0-9_-]{22}$/) as string]);
    for (const code of recoveryCodes) {
      const sha = hashSecret(code.replace('-', ''));
      expect(stored.some((h) => h.includes(sha) || h.includes(Buffer.from(sha, 'hex').toString('base64url')))).toBe(false);
    }
    const agent = await halfSignedIn(user);
    expect((await formFrom(agent, newAddress(), '/signin/otp', { otp: recoveryCodes[3]! })).status).toBe(303);
  });

  it('re-hashes the SHA-256 rows of before at start, and those codes keep working, once each', async () => {
    const { user } = await withAuthenticator();
    const old = ['abcde-fghjk', 'mnpqr-stuvw'];
    await t.store.authenticatorApp.replaceRecoveryCodes(user.id, old.map((c) => hashSecret(c.replace('-', ''))), t.clock.now());
    const legacy = await t.store.authenticatorApp.listLegacyRecoveryCodes('scrypt$');
    expect(legacy.filter((r) => r.userId === user.id)).toHaveLength(2);
    expect(await upgradeRecoveryCodes(t.store)).toBe(legacy.length);
    expect(await upgradeRecoveryCodes(t.store)).toBe(0);
    const stored = await t.store.authenticatorApp.listRecoveryCodeHashes(user.id);
    expect(stored.every((h) => h.startsWith('scrypt$16384$8$1$'))).toBe(true);
    const first = await halfSignedIn(user);
    expect((await formFrom(first, newAddress(), '/signin/otp', { otp: 'ABCDE FGHJK' })).status).toBe(303);
    const again = await halfSignedIn(user);
    const reused = await formFrom(again, newAddress(), '/signin/otp', { otp: old[0]! });
    expect([reused.status, await errorOf(reused)]).toEqual([401, WRONG_CODE]);
    expect((await formFrom(again, newAddress(), '/signin/otp', { otp: old[1]! })).status).toBe(303);
  });
});
