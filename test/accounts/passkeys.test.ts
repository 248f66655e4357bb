/**
 * Passkeys over the JSON API, with a software authenticator (test/fixtures/soft-authenticator.ts):
 * adding, listing, renaming and removing (owner only: another user's passkey is 404), signing in
 * without a name (amr, return_to), single-use expiring challenges, the counter rule, and the
 * errors each operation declares. The browser's side is test/browser/passkeys.test.ts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { passkeyAmr } from '../../src/accounts/passkeys.js';
import type { AuditEvent, AuditFields } from '../../src/audit.js';
import { RateLimited } from '../../src/domain/errors.js';
import { liftSuspension, suspendUser } from '../../src/moderation/moderation.js';
import { hashSecret } from '../../src/security/secrets.js';
import { SoftAuthenticator } from '../fixtures/soft-authenticator.js';
import { Agent, signedInAgent, startServer, TEST_PASSWORD, type TestServer } from '../helpers.js';

let t: TestServer;
let events: { event: AuditEvent; fields: AuditFields }[] = [];
beforeAll(async () => {
  // Many sign-ins from one address: the limit is tested on its own, below.
  t = await startServer({}, { limits: { signInIp: { points: 1000, seconds: 600 } } });
  t.app.deps.audit = (event, fields) => events.push({ event, fields });
});
beforeEach(() => {
  events = [];
});
afterAll(async () => t?.close());

type Options = { challenge: string; user: { id: string } };
const body = async (res: Response): Promise<unknown> => [res.status, await res.json()];

function authenticator(o: { synced?: boolean; userVerified?: boolean } = {}): SoftAuthenticator {
  const url = new URL(t.config.publicUrl);
  return new SoftAuthenticator({ rpId: url.hostname, origin: url.origin, ...o });
}

/** Registers a new software passkey for the agent's user; returns it and its id. */
async function addPasskey(agent: Agent, o: { synced?: boolean; name?: string } = {}): Promise<{ key: SoftAuthenticator; id: number }> {
  const key = authenticator(o);
  const options = (await (await agent.json('POST', '/api/account/passkeys/options', { password: TEST_PASSWORD })).json()) as Options;
  const res = await agent.json('POST', '/api/account/passkeys', { credential: key.register(options), ...(o.name ? { name: o.name } : {}) });
  expect(res.status).toBe(201);
  return { key, id: ((await res.json()) as { id: number }).id };
}

/** The amr the agent's session recorded (read from the stored session). */
async function storedAmr(agent: Agent): Promise<unknown> {
  const data = await t.store.sessions.getSession(hashSecret(agent.cookies.get('idp.sid')!), t.clock.now());
  return (JSON.parse(data!) as { amr?: string[] }).amr;
}

async function signInWith(key: SoftAuthenticator, extra: Record<string, unknown> = {}): Promise<{ agent: Agent; res: Response }> {
  const agent = new Agent(t);
  const options = await agent.json('POST', '/api/session/passkey/options');
  expect(options.status).toBe(200);
  expect(options.headers.get('cache-control')).toBe('no-store');
  const res = await agent.json('POST', '/api/session/passkey', { credential: key.authenticate((await options.json()) as Options), ...extra });
  return { agent, res };
}

describe('the account passkeys', () => {
  it('registers with options for this relying party, lists, renames and removes a passkey', async () => {
    const { agent, user } = await signedInAgent(t);
    events = [];
    const res = await agent.json('POST', '/api/account/passkeys/options', { password: TEST_PASSWORD });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const options = (await res.json()) as Options & Record<string, unknown>;
    expect(options).toMatchObject({
      rp: { name: 'Identity', id: 'localhost' },
      user: { id: Buffer.from(String(user.id)).toString('base64url'), name: user.name, displayName: user.name },
      attestation: 'none',
      excludeCredentials: [],
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
    });
    const key = authenticator({ synced: true });
    const added = await agent.json('POST', '/api/account/passkeys', { credential: key.register(options) });
    const now = t.clock.now();
    const first = await body(added);
    expect(first).toEqual([201, { id: expect.any(Number) as number, name: 'Passkey 1', created_at: now, synced: true }]);
    const id = ((first as [number, { id: number }])[1]).id;
    expect(events).toEqual([{ event: 'passkey_added', fields: { userId: user.id, passkeyId: id, ip: '127.0.0.1' } }]);
    const stored = (await t.store.passkeys.listPasskeys(user.id))[0]!;
    expect(stored).toMatchObject({ credentialId: key.id, counter: 0, transports: ['internal'], deviceType: 'multiDevice', backedUp: true });

    // The next options exclude it; a second passkey is "Passkey 2" unless named.
    const next = (await (await agent.json('POST', '/api/account/passkeys/options', { password: TEST_PASSWORD })).json()) as { excludeCredentials: unknown[] };
    expect(next.excludeCredentials).toEqual([{ id: key.id, type: 'public-key', transports: ['internal'] }]);
    const second = await addPasskey(agent, { name: '  Work key ' });

    const listed = await agent.fetch('/api/account/passkeys');
    expect(listed.headers.get('cache-control')).toBe('no-store');
    expect(await body(listed)).toEqual([
      200,
      {
        passkeys: [
          { id, name: 'Passkey 1', created_at: now, synced: true },
          { id: second.id, name: 'Work key', created_at: now, synced: false },
        ],
      },
    ]);
    expect(await body(await agent.json('PATCH', `/api/account/passkeys/${id}`, { name: 'Phone' }))).toEqual([200, { id, name: 'Phone', created_at: now, synced: true }]);
    const removed = await agent.json('DELETE', `/api/account/passkeys/${second.id}`, { password: TEST_PASSWORD });
    expect(removed.status).toBe(204);
    expect(((await (await agent.fetch('/api/account/passkeys')).json()) as { passkeys: { name: string }[] }).passkeys.map((p) => p.name)).toEqual(['Phone']);
    expect(events.at(-1)).toEqual({ event: 'passkey_removed', fields: { userId: user.id, passkeyId: second.id, ip: '127.0.0.1' } });
  });

  it('uses a registration challenge once, for 5 minutes, and only from this origin', async () => {
    const { agent } = await signedInAgent(t);
    const key = authenticator();
    const noChallenge = { message: 'No passkey registration is under way (or it expired): start again' };
    // Never asked for.
    expect(await body(await agent.json('POST', '/api/account/passkeys', { credential: key.register({ challenge: 'abc', user: { id: 'MQ' } }) }))).toEqual([400, noChallenge]);
    // Another origin: refused, and the challenge is gone.
    let options = (await (await agent.json('POST', '/api/account/passkeys/options', { password: TEST_PASSWORD })).json()) as Options;
    const foreign = await agent.json('POST', '/api/account/passkeys', { credential: key.register(options, 'https://evil.example') });
    expect(await body(foreign)).toEqual([400, { message: 'The passkey could not be verified' }]);
    expect(await body(await agent.json('POST', '/api/account/passkeys', { credential: key.register(options) }))).toEqual([400, noChallenge]);
    // Expired after 5 minutes.
    options = (await (await agent.json('POST', '/api/account/passkeys/options', { password: TEST_PASSWORD })).json()) as Options;
    t.clock.advance(5 * 60 * 1000);
    expect(await body(await agent.json('POST', '/api/account/passkeys', { credential: key.register(options) }))).toEqual([400, noChallenge]);
  });

  it('refuses a credential registered already (409), to this account or another', async () => {
    const { agent } = await signedInAgent(t);
    const { key } = await addPasskey(agent);
    const { agent: other } = await signedInAgent(t);
    for (const who of [agent, other]) {
      const options = (await (await who.json('POST', '/api/account/passkeys/options', { password: TEST_PASSWORD })).json()) as Options;
      expect(await body(await who.json('POST', '/api/account/passkeys', { credential: key.register(options) }))).toEqual([409, { message: 'This passkey is registered already' }]);
    }
  });

  it("answers 404 for another user's passkey and an unknown one, and 400 for a bad name or id", async () => {
    const { agent: owner } = await signedInAgent(t);
    const { id } = await addPasskey(owner);
    const { agent } = await signedInAgent(t);
    const notFound = [404, { message: 'Passkey not found' }];
    expect(await body(await agent.json('PATCH', `/api/account/passkeys/${id}`, { name: 'Mine now' }))).toEqual(notFound);
    expect(await body(await agent.json('DELETE', `/api/account/passkeys/${id}`))).toEqual(notFound);
    for (const unknown of ['2147483647', '9007199254740991']) {
      expect(await body(await agent.json('DELETE', `/api/account/passkeys/${unknown}`))).toEqual(notFound);
      expect(await body(await agent.json('PATCH', `/api/account/passkeys/${unknown}`, { name: 'x' }))).toEqual(notFound);
    }
    expect(((await (await owner.fetch('/api/account/passkeys')).json()) as { passkeys: { name: string }[] }).passkeys.map((p) => p.name)).toEqual(['Passkey 1']);
    const badName = [400, { message: "A passkey's name is 1 to 64 characters, without control characters" }];
    for (const name of ['   ', 'x'.repeat(65), 'tab\there']) expect(await body(await owner.json('PATCH', `/api/account/passkeys/${id}`, { name }))).toEqual(badName);
    for (const bad of ['abc', '0', '01', '1e3']) expect((await owner.json('PATCH', `/api/account/passkeys/${bad}`, { name: 'x' })).status).toBe(400);
    expect((await owner.json('PATCH', `/api/account/passkeys/${id}`, {})).status).toBe(400);
    expect((await owner.json('POST', '/api/account/passkeys', { credential: { id: 'x' } })).status).toBe(400);
    expect((await owner.json('POST', '/api/account/passkeys', {})).status).toBe(400);
  });

  it('needs a signed-in session (401) and the CSRF token (403)', async () => {
    const anonymous = new Agent(t);
    expect(await body(await anonymous.fetch('/api/account/passkeys'))).toEqual([401, { message: 'Sign in first' }]);
    expect(await body(await anonymous.json('POST', '/api/account/passkeys/options'))).toEqual([401, { message: 'Sign in first' }]);
    const { agent } = await signedInAgent(t);
    const { id } = await addPasskey(agent);
    const csrf = [403, { message: 'Invalid CSRF token' }];
    const plain = { 'Content-Type': 'application/json' };
    expect(await body(await agent.fetch('/api/account/passkeys/options', { method: 'POST' }))).toEqual(csrf);
    expect(await body(await agent.fetch('/api/account/passkeys', { method: 'POST', headers: plain, body: '{"credential":{}}' }))).toEqual(csrf);
    expect(await body(await agent.fetch(`/api/account/passkeys/${id}`, { method: 'PATCH', headers: plain, body: '{"name":"x"}' }))).toEqual(csrf);
    expect(await body(await agent.fetch(`/api/account/passkeys/${id}`, { method: 'DELETE' }))).toEqual(csrf);
    expect(await body(await anonymous.fetch('/api/session/passkey/options', { method: 'POST' }))).toEqual(csrf);
    expect(await body(await anonymous.fetch('/api/session/passkey', { method: 'POST', headers: plain, body: '{"credential":{}}' }))).toEqual(csrf);
  });
});

describe('signing in with a passkey', () => {
  it('signs the owner in with no name typed, to return_to, recording how (amr) and the use', async () => {
    const { agent: owner, user } = await signedInAgent(t);
    const { key, id } = await addPasskey(owner);
    events = [];
    const { agent, res } = await signInWith(key, { return_to: '/apps' });
    expect(await body(res)).toEqual([200, { redirect: '/apps' }]);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await body(await agent.fetch('/api/session'))).toMatchObject([200, { signed_in: true, user: { id: user.id, name: user.name } }]);
    expect(await storedAmr(agent)).toEqual(['hwk', 'user', 'mfa']);
    expect(events.map((e) => e.event)).toEqual(['sign_in']);
    expect((await t.store.passkeys.listPasskeys(user.id))[0]).toMatchObject({ id, lastUsedAt: t.clock.now() });
    // An address that is not a path here is ignored.
    const elsewhere = await signInWith(key, { return_to: 'https://evil.example/' });
    expect(await body(elsewhere.res)).toEqual([200, { redirect: '/account' }]);
  });

  it('refuses a suspended account (403, with the reason), and signs it in again once lifted', async () => {
    const { agent: owner, user } = await signedInAgent(t);
    const { key } = await addPasskey(owner);
    const deps = { store: t.store, now: () => t.clock.now(), audit: () => undefined };
    await suspendUser(deps, null, user.id, { reason: 'Spamming the game chat' });
    const { agent, res } = await signInWith(key);
    expect(await body(res)).toEqual([403, { message: 'This account is suspended: Spamming the game chat' }]);
    expect(await body(await agent.fetch('/api/session'))).toMatchObject([200, { signed_in: false }]);
    await liftSuspension(deps, null, user.id);
    expect(await body((await signInWith(key)).res)).toEqual([200, { redirect: '/account' }]);
  });

  it('records swk for a synced passkey, and no mfa without user verification', async () => {
    const { agent: owner } = await signedInAgent(t);
    const synced = await addPasskey(owner, { synced: true });
    const first = await signInWith(synced.key);
    expect(first.res.status).toBe(200);
    expect(await storedAmr(first.agent)).toEqual(['swk', 'user', 'mfa']);
    expect(passkeyAmr({ deviceType: 'singleDevice', backedUp: false, userVerified: false })).toEqual(['hwk', 'user']);
    expect(passkeyAmr({ deviceType: 'multiDevice', backedUp: false, userVerified: true })).toEqual(['swk', 'user', 'mfa']);
  });

  it('refuses a signature counter that does not grow, and audits it; a growing one passes', async () => {
    const { agent: owner, user } = await signedInAgent(t);
    const { key } = await addPasskey(owner);
    key.counter = 5;
    expect((await signInWith(key)).res.status).toBe(200);
    events = [];
    const replay = await signInWith(key);
    expect(await body(replay.res)).toEqual([401, { message: 'The passkey was not accepted' }]);
    expect(events).toEqual([{ event: 'sign_in_failed', fields: { userId: user.id, ip: '127.0.0.1', reason: 'passkey_counter' } }]);
    expect(await body(await replay.agent.fetch('/api/session'))).toMatchObject([200, { signed_in: false }]);
    key.counter = 6;
    expect((await signInWith(key)).res.status).toBe(200);
  });

  it('refuses an unknown passkey, a bad signature, another origin and a wrong user handle (401)', async () => {
    const { agent: owner, user } = await signedInAgent(t);
    const { key } = await addPasskey(owner);
    events = [];
    const stranger = authenticator();
    expect(await body((await signInWith(stranger)).res)).toEqual([401, { message: 'This passkey is not registered here' }]);
    expect(events).toEqual([{ event: 'sign_in_failed', fields: { ip: '127.0.0.1', reason: 'passkey_unknown' } }]);
    const refused = [401, { message: 'The passkey was not accepted' }];

    const agent = new Agent(t);
    let options = (await (await agent.json('POST', '/api/session/passkey/options')).json()) as Options;
    const forged = key.authenticate(options) as { response: Record<string, string> };
    forged.response.signature = Buffer.from('not a signature').toString('base64url');
    expect(await body(await agent.json('POST', '/api/session/passkey', { credential: forged }))).toEqual(refused);

    options = (await (await agent.json('POST', '/api/session/passkey/options')).json()) as Options;
    expect(await body(await agent.json('POST', '/api/session/passkey', { credential: key.authenticate(options, 'https://evil.example') }))).toEqual(refused);

    options = (await (await agent.json('POST', '/api/session/passkey/options')).json()) as Options;
    key.userHandle = Buffer.from('999999').toString('base64url');
    expect(await body(await agent.json('POST', '/api/session/passkey', { credential: key.authenticate(options) }))).toEqual(refused);
    expect(events.slice(1).map((e) => e.fields)).toEqual(Array(3).fill({ userId: user.id, ip: '127.0.0.1', reason: 'passkey_invalid' }));
  });

  it('counts every attempt against the client address with the password sign-ins (429)', async () => {
    const { agent: owner } = await signedInAgent(t);
    const { key } = await addPasskey(owner);
    const limiter = t.app.deps.limits.signInIp;
    t.app.deps.limits.signInIp = { ...limiter, consume: () => Promise.reject(new RateLimited('Too many attempts, retry in 60 seconds', 60)) };
    try {
      events = [];
      const { res } = await signInWith(key);
      expect(await body(res)).toEqual([429, { message: 'Too many attempts, retry in 60 seconds' }]);
      expect(res.headers.get('retry-after')).toBe('60');
      expect(events).toEqual([{ event: 'sign_in_failed', fields: { ip: '127.0.0.1', reason: 'rate_limited' } }]);
    } finally {
      t.app.deps.limits.signInIp = limiter;
    }
  });

  it('uses a sign-in challenge once and for 5 minutes (400 otherwise); malformed answers are 400', async () => {
    const { agent: owner } = await signedInAgent(t);
    const { key } = await addPasskey(owner);
    const noChallenge = [400, { message: 'No passkey sign-in is under way (or it expired): start again' }];
    const agent = new Agent(t);
    expect(await body(await agent.json('POST', '/api/session/passkey', { credential: key.authenticate({ challenge: 'abc' }) }))).toEqual(noChallenge);
    let options = (await (await agent.json('POST', '/api/session/passkey/options')).json()) as Options;
    t.clock.advance(5 * 60 * 1000);
    expect(await body(await agent.json('POST', '/api/session/passkey', { credential: key.authenticate(options) }))).toEqual(noChallenge);
    options = (await (await agent.json('POST', '/api/session/passkey/options')).json()) as Options;
    expect(options).toMatchObject({ rpId: 'localhost', userVerification: 'preferred' });
    key.counter = 0;
    const other = new Agent(t);
    // A challenge is this session's: another session has none.
    expect(await body(await other.json('POST', '/api/session/passkey', { credential: key.authenticate(options) }))).toEqual(noChallenge);
    expect((await agent.json('POST', '/api/session/passkey', { credential: key.authenticate(options) })).status).toBe(200);
    expect((await agent.json('POST', '/api/session/passkey', { credential: { id: 'x', rawId: 'x', type: 'public-key' } })).status).toBe(400);
    expect((await agent.json('POST', '/api/session/passkey', { credential: key.authenticate(options), return_to: 7 })).status).toBe(400);
  });
});

describe('the pages', () => {
  it('sign-in: the passkey button, the name field offering passkeys, the scripts; account: the section after the password', async () => {
    const signIn = await (await new Agent(t).fetch('/signin?return_to=%2Fapps')).text();
    expect(signIn).toContain('<input name="name" autocomplete="username webauthn" required maxlength="254" value="">');
    expect(signIn).toContain('<button type="button" id="passkey-signin" class="secondary">Sign in with a passkey</button>');
    expect(signIn).toContain('<input type="hidden" name="return_to" value="/apps">');
    expect(signIn).toContain('<script src="/assets/signin.js"></script>');
    const { agent } = await signedInAgent(t);
    const account = await (await agent.fetch('/account')).text();
    expect(account).toMatch(/<section id="password" class="card">[^]*<\/section>\n<section id="passkeys" class="card"><h2>Passkeys<\/h2>/);
    expect(account).toContain('<button type="submit" id="add-passkey">Add a passkey</button>');
    expect(account).toContain('<input type="password" id="add-passkey-password" name="password" autocomplete="current-password" required maxlength="256">');
    expect(account).toContain('<script src="/assets/account.js"></script>');
  });
});

describe('confirming before adding or removing a passkey', () => {
  it('asks for the password (400 missing, 403 wrong) to add a passkey and to remove any passkey, the last or not', async () => {
    const { agent, user } = await signedInAgent(t);
    const missing = [400, { message: 'Body field password is required' }];
    const wrong = [403, { message: 'The password is wrong' }];
    expect(await body(await agent.json('POST', '/api/account/passkeys/options'))).toEqual(missing);
    expect(await body(await agent.json('POST', '/api/account/passkeys/options', { password: 'wrong password' }))).toEqual(wrong);
    const first = await addPasskey(agent);
    const second = await addPasskey(agent);
    for (const passkey of [first, second]) {
      expect(await body(await agent.json('DELETE', `/api/account/passkeys/${passkey.id}`))).toEqual(missing);
      expect(await body(await agent.json('DELETE', `/api/account/passkeys/${passkey.id}`, {}))).toEqual(missing);
      expect(await body(await agent.json('DELETE', `/api/account/passkeys/${passkey.id}`, { password: 'wrong password' }))).toEqual(wrong);
      expect((await agent.json('DELETE', `/api/account/passkeys/${passkey.id}`, { password: TEST_PASSWORD })).status).toBe(204);
    }
    expect(await t.store.passkeys.listPasskeys(user.id)).toEqual([]);
  });

  it('takes a passkey confirmation of the session instead, for 5 minutes, from one of the account\'s passkeys only', async () => {
    const { agent, user } = await signedInAgent(t);
    expect(await body(await agent.json('POST', '/api/account/reauth/passkey/options'))).toEqual([409, { message: 'This account has no passkey; confirm with your password' }]);
    const { key, id } = await addPasskey(agent);
    const { agent: stranger } = await signedInAgent(t);
    const strangersKey = (await addPasskey(stranger)).key;
    const confirm = async (who: Agent, k: SoftAuthenticator): Promise<Response> => {
      const res = await who.json('POST', '/api/account/reauth/passkey/options');
      expect(res.headers.get('cache-control')).toBe('no-store');
      const options = (await res.json()) as Options & { allowCredentials: { id: string }[] };
      return who.json('POST', '/api/account/reauth/passkey', { credential: k.authenticate(options) });
    };
    // Another account's passkey does not confirm this one.
    expect(await body(await confirm(agent, strangersKey))).toEqual([403, { message: 'The passkey was not accepted' }]);
    expect(await body(await agent.json('POST', '/api/account/reauth/passkey', { credential: key.authenticate({ challenge: 'abc' }) }))).toEqual([
      400,
      { message: 'No passkey confirmation is under way (or it expired): start again' },
    ]);
    events = [];
    expect((await confirm(agent, key)).status).toBe(204);
    expect(events).toEqual([{ event: 'passkey_confirmed', fields: { userId: user.id, ip: '127.0.0.1' } }]);
    // 5 minutes later it no longer stands in for the password.
    t.clock.advance(5 * 60 * 1000);
    expect((await agent.json('DELETE', `/api/account/passkeys/${id}`)).status).toBe(400);
    expect((await confirm(agent, key)).status).toBe(204);
    // The confirmation stands in for the password when adding a passkey too.
    expect((await agent.json('POST', '/api/account/passkeys/options')).status).toBe(200);
    expect((await agent.json('DELETE', `/api/account/passkeys/${id}`)).status).toBe(204);
  });
});
