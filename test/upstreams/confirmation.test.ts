/**
 * An account made through an upstream has no password (issue 51, item 2;
 * docs/account.md#confirming-through-a-linked-account), over HTTP against a real provider
 * (node-oidc-provider, test/upstream-provider.ts) that keeps its own session between sign-ins:
 * "Confirm with <name>" asks the upstream for a new sign-in (`prompt=login`, `max_age=0`), and the
 * callback's proof (`auth_time`, the identity linked to this account) confirms this session for 5
 * minutes, as a passkey confirmation does; then the account sets a first password with no current
 * one (audited, mailed; two racing, one wins), adds a passkey, unlinks and deletes itself. And what
 * does not confirm: a stolen session alone, a confirmation older than 5 minutes, an upstream that
 * signs the person in silently from its old session, another account at the upstream, a new
 * sign-in here in that browser; an account with a password keeps asking for it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEvent, AuditFields } from '../../src/audit.js';
import { NO_PASSWORD } from '../../src/domain/users.js';
import { addUpstream } from '../../src/upstreams/upstreams.js';
import { SoftAuthenticator } from '../fixtures/soft-authenticator.js';
import { Agent, signedInAgent, startServer, TEST_PASSWORD, type TestServer } from '../helpers.js';
import { MailServer } from '../mail-server.js';
import { showUpstreamLogsOnFailure, signInAtUpstreamOverHttp, startUpstreamProvider, type UpstreamProvider } from '../upstream-provider.js';
import { body, CONFIRM_FIRST, confirmThrough, firstPassword, PASSWORD_REQUIRED, reasonOf, SECRET, upstreamAccountOn } from './confirmation-fixture.js';

const MINUTE = 60 * 1000;
const HAS_ONE = { message: 'Your account has a password already: change it with the current one' };

let t: TestServer;
let op: UpstreamProvider;
let smtp: MailServer;
let events: { event: AuditEvent; fields: AuditFields }[] = [];

/** A new account made through Test OP by `login` there (no password), signed in in a new browser. */
const upstreamAccount = (login: string, name: string) => upstreamAccountOn(t, login, name);
const of = (event: AuditEvent) => events.filter((e) => e.event === event);

describe('confirming through a linked upstream, for an account without a password', () => {
  showUpstreamLogsOnFailure(() => op);

  beforeAll(async () => {
    smtp = await new MailServer().start();
    t = await startServer({ SMTP_URL: smtp.url }, { limits: { upstreamIp: { points: 500, seconds: 600 }, signInIp: { points: 1000, seconds: 600 } } });
    t.config.publicUrl = t.baseUrl;
    const audit = t.app.deps.audit;
    t.app.deps.audit = (event, fields) => {
      events.push({ event, fields });
      audit(event, fields);
    };
    const callback = (slug: string) => [`${t.baseUrl}/signin/upstream/${slug}/callback`];
    op = await startUpstreamProvider({
      clients: [
        { client_id: 'honest', client_secret: SECRET, redirect_uris: callback('test-op') },
        // Ignores prompt=login and max_age; its ID tokens say when its session signed in.
        { client_id: 'deaf', client_secret: SECRET, redirect_uris: callback('deaf-op'), require_auth_time: true },
      ],
      accounts: Object.fromEntries(
        ['ada', 'bob', 'cy', 'dee', 'eve', 'fay', 'gus', 'hal', 'ivy', 'jo'].map((login) => [login, { sub: `op-${login}`, email: `${login}@op.example`, email_verified: true }]),
      ),
      ignoresReauthentication: ['deaf'],
    });
    const registry = { store: t.store, now: t.clock.now, secrets: t.config.sessionSecrets };
    await addUpstream(registry, { name: 'Test OP', source: { issuer: op.issuer }, clientId: 'honest', clientSecret: SECRET });
    await addUpstream(registry, { name: 'Deaf OP', source: { issuer: op.issuer }, clientId: 'deaf', clientSecret: SECRET });
  });
  beforeEach(() => {
    events = [];
    smtp.clear();
  });
  afterAll(async () => {
    await op?.close();
    await t?.close();
    await smtp?.close();
  });

  it('confirms with a new sign-in there (prompt=login, max_age=0), then sets a first password without a current one: audited, mailed, and it signs in', async () => {
    const ada = await upstreamAccount('ada', 'ada_here');
    // No password to give: change password is refused as such, and a first one needs a confirmation.
    expect(await body(await ada.agent.json('POST', '/api/account/password', { current_password: '', new_password: 'my first password' }))).toEqual([
      409,
      { message: 'Your account has no password yet: set one' },
    ]);
    expect(await body(await firstPassword(ada))).toEqual([400, CONFIRM_FIRST]);

    const { sent, forms, answer } = await confirmThrough(ada, 'test-op', 'ada');
    expect([sent.searchParams.get('prompt'), sent.searchParams.get('max_age')]).toEqual(['login', '0']);
    // The upstream still had ada's session from the sign-up, and asked for her login again.
    expect(forms).toEqual(['login']);
    expect([answer.status, answer.headers.get('location')]).toEqual([303, '/account#password']);
    expect(of('upstream_confirmed')).toEqual([{ event: 'upstream_confirmed', fields: { userId: ada.user.id, upstream: 'test-op', ip: '127.0.0.1' } }]);

    expect(await body(await ada.agent.json('POST', '/api/account/first-password', { new_password: 'short' }))).toEqual([400, { message: 'Password must be 8 to 256 characters' }]);
    expect(await body(await firstPassword(ada))).toEqual([204, '']);
    expect(of('password_set')).toEqual([{ event: 'password_set', fields: { userId: ada.user.id, ip: '127.0.0.1' } }]);
    await t.app.deps.mailer.idle();
    expect(smtp.to(ada.user.email).map((m) => m.mail.subject)).toEqual(['A password was set for your account']);
    expect(smtp.to(ada.user.email)[0]!.mail.text).toContain('a password was set for your account: your name and that password now sign in too');
    // A way in added ends nothing: this session goes on; the name and the password sign in.
    expect((await ada.agent.fetch('/api/account')).status).toBe(200);
    await new Agent(t).signIn(ada.user, 'my first password');

    // Once there is a password, it is asked: not a second first one, and the upstream's confirmation no longer stands in.
    expect(await body(await firstPassword(ada, 'another password'))).toEqual([409, HAS_ONE]);
    expect(await body(await ada.agent.json('POST', '/api/account/passkeys/options', {}))).toEqual([400, PASSWORD_REQUIRED]);
    expect(await body(await ada.agent.json('POST', '/api/account/deletion', { confirm: ada.user.name }))).toEqual([400, PASSWORD_REQUIRED]);
    const again = await ada.agent.form('/signin/upstream/test-op', { confirm: 'true' });
    expect([again.status, await reasonOf(again)]).toEqual([409, 'Your account has a password: confirm with it, or with a passkey']);
    expect(await body(await ada.agent.json('POST', '/api/account/password', { current_password: 'my first password', new_password: 'my second password' }))).toEqual([204, '']);
  });

  it('a stolen session alone (no new sign-in there) sets no password, adds no passkey or app, moves no address and deletes nothing', async () => {
    const bob = await upstreamAccount('bob', 'bob_here');
    expect(await body(await firstPassword(bob))).toEqual([400, CONFIRM_FIRST]);
    expect(await body(await bob.agent.json('POST', '/api/account/passkeys/options', {}))).toEqual([400, CONFIRM_FIRST]);
    expect(await body(await bob.agent.json('POST', '/api/account/totp', {}))).toEqual([400, CONFIRM_FIRST]);
    expect(await body(await bob.agent.json('POST', '/api/account/deletion', { confirm: bob.user.name }))).toEqual([400, CONFIRM_FIRST]);
    // A password guessed is a wrong one (there is none), counted as ever.
    expect(await body(await bob.agent.json('POST', '/api/account/deletion', { confirm: bob.user.name, password: 'a guess' }))).toEqual([403, { message: 'The password is wrong' }]);
    const moved = await bob.agent.form('/account/email', { email: 'thief@mail.example' });
    expect([moved.status, /id="change-email-result-error">([^<]*)</.exec(await moved.text())?.[1]]).toEqual([400, `Changing the address failed: ${CONFIRM_FIRST.message}`]);
    const link = await bob.agent.form('/signin/upstream/deaf-op', { link: 'true' });
    expect([link.status, await reasonOf(link)]).toEqual([400, CONFIRM_FIRST.message]);
    expect((await t.store.users.getUser(bob.user.id))!.passwordHash).toBe(NO_PASSWORD);
    expect([of('password_set'), of('account_deleted')]).toEqual([[], []]);
  });

  it('after confirming there: asks to change its address, adds a passkey, links and unlinks, then deletes itself', async () => {
    const cy = await upstreamAccount('cy', 'cy_here');
    expect((await confirmThrough(cy, 'test-op', 'cy')).answer.headers.get('location')).toBe('/account#password');
    const moved = await cy.agent.form('/account/email', { email: 'cy@new.example' });
    expect([moved.status, await moved.text()]).toEqual([200, expect.stringContaining('cy@new.example')]);
    const url = new URL(t.config.publicUrl);
    const key = new SoftAuthenticator({ rpId: url.hostname, origin: url.origin });
    const options = await cy.agent.json('POST', '/api/account/passkeys/options', {});
    expect(options.status).toBe(200);
    const added = await cy.agent.json('POST', '/api/account/passkeys', { credential: key.register((await options.json()) as { challenge: string; user: { id: string } }) });
    expect(added.status).toBe(201);
    // Linking another upstream: the confirmation stands in for the password.
    const link = await cy.agent.form('/signin/upstream/deaf-op', { link: 'true' });
    expect(link.status, await link.clone().text()).toBe(303);
    const back = await signInAtUpstreamOverHttp(link.headers.get('location')!, 'cy', cy.jar);
    expect((await cy.agent.fetch(back.pathname + back.search)).headers.get('location')).toBe('/account');
    const links = await t.store.upstreamIdentities.listUpstreamIdentities(cy.user.id);
    expect(links.map((l) => l.upstreamSlug)).toEqual(['test-op', 'deaf-op']);
    expect(await body(await cy.agent.json('DELETE', `/api/account/upstream-identities/${links[1]!.id}`))).toEqual([204, '']);
    expect(await body(await cy.agent.json('POST', '/api/account/deletion', { confirm: cy.user.name }))).toEqual([204, '']);
    expect(await t.store.users.getUser(cy.user.id)).toBeUndefined();
    expect(of('account_deleted')).toEqual([{ event: 'account_deleted', fields: { userId: cy.user.id, name: 'cy_here', by: 'user' } }]);
  });

  it('another account at the upstream confirms nothing for this one (403, not_linked), nor does a confirmation once this browser signs in again', async () => {
    const dee = await upstreamAccount('dee', 'dee_here');
    const eve = await upstreamAccount('eve', 'eve_here');
    // At the upstream (in a browser without its session there), dee signs in as fay (linked to no
    // account here), then as eve (linked to another account).
    for (const login of ['fay', 'eve']) {
      const { answer } = await confirmThrough({ agent: dee.agent, jar: new Map() }, 'test-op', login);
      expect([answer.status, await reasonOf(answer)]).toEqual([403, 'This Test OP account is not the one linked to yours: nothing was confirmed']);
    }
    expect(of('upstream_sign_in_failed')).toEqual([
      { event: 'upstream_sign_in_failed', fields: { upstream: 'test-op', ip: '127.0.0.1', reason: 'not_linked' } },
      { event: 'upstream_sign_in_failed', fields: { upstream: 'test-op', ip: '127.0.0.1', reason: 'not_linked' } },
    ]);
    expect(of('upstream_confirmed')).toEqual([]);
    expect(await body(await firstPassword(dee))).toEqual([400, CONFIRM_FIRST]);
    expect(await body(await firstPassword(eve))).toEqual([400, CONFIRM_FIRST]);

    // A confirmation is of the sign-in it was made in: dee confirms, then eve signs in in the same browser.
    await confirmThrough(dee, 'test-op', 'dee');
    const started = await dee.agent.form('/signin/upstream/test-op', {});
    const back = await signInAtUpstreamOverHttp(started.headers.get('location')!, 'eve', new Map());
    expect((await dee.agent.fetch(back.pathname + back.search)).headers.get('location')).toBe('/account');
    expect(await body(await dee.agent.fetch('/api/account')).then((r) => (r as [number, { user: { name: string } }])[1].user.name)).toBe('eve_here');
    expect(await body(await firstPassword(dee))).toEqual([400, CONFIRM_FIRST]);

    // A confirmation started by one account is not finished in a session signed in to another meanwhile.
    const gus = await upstreamAccount('gus', 'gus_here');
    const start = await gus.agent.form('/signin/upstream/test-op', { confirm: 'true' });
    const returned = await signInAtUpstreamOverHttp(start.headers.get('location')!, 'gus', gus.jar);
    const { agent: other } = await signedInAgent(t);
    gus.agent.cookies.clear();
    for (const [k, v] of other.cookies) gus.agent.cookies.set(k, v);
    const late = await gus.agent.fetch(returned.pathname + returned.search);
    expect([late.status, await reasonOf(late)]).toEqual([400, 'This sign-in did not start in this browser, or took too long: start again']);
  });

  it('an upstream not linked, an account signed out, or link and confirm at once: refused at the start', async () => {
    const hal = await upstreamAccount('hal', 'hal_here');
    const notLinked = await hal.agent.form('/signin/upstream/deaf-op', { confirm: 'true' });
    expect([notLinked.status, await reasonOf(notLinked)]).toEqual([403, 'No Deaf OP account is linked to yours: confirm another way']);
    const both = await hal.agent.form('/signin/upstream/test-op', { confirm: 'true', link: 'true' });
    expect([both.status, await reasonOf(both)]).toEqual([400, 'Link an account or confirm with one, not both at once']);
    const signedOut = await new Agent(t).form('/signin/upstream/test-op', { confirm: 'true' });
    expect([signedOut.status, await reasonOf(signedOut)]).toEqual([401, 'Sign in first']);
    // An account with a password confirms with it.
    const { agent } = await signedInAgent(t);
    const withPassword = await agent.form('/signin/upstream/test-op', { confirm: 'true', password: TEST_PASSWORD });
    expect([withPassword.status, await reasonOf(withPassword)]).toEqual([409, 'Your account has a password: confirm with it, or with a passkey']);
  });

  it('of two first passwords racing, one is set and the other is 409 (5 rounds)', async () => {
    const ivy = await upstreamAccount('ivy', 'ivy_here');
    await confirmThrough(ivy, 'test-op', 'ivy');
    for (let round = 0; round < 5; round++) {
      await t.store.knex('users').where({ id: ivy.user.id }).update({ password_hash: NO_PASSWORD });
      const answers = await Promise.all([firstPassword(ivy, `first password A${round}`), firstPassword(ivy, `first password B${round}`)]);
      const outcomes = await Promise.all(answers.map(body));
      expect(outcomes.sort((a, b) => (a as [number])[0] - (b as [number])[0])).toEqual([
        [204, ''],
        [409, HAS_ONE],
      ]);
    }
    expect(of('password_set')).toHaveLength(5);
  });

  // Last: these move this service's clock minutes ahead of the upstream's.
  it('a confirmation older than 5 minutes counts no more, and an upstream that signs the person in silently from its old session confirms nothing (401, not_fresh)', async () => {
    const jo = await upstreamAccount('jo', 'jo_here');
    await t.store.upstreamIdentities.linkUpstreamIdentity({ userId: jo.user.id, upstreamSlug: 'deaf-op', subject: 'op-jo', email: 'jo@op.example', createdAt: t.clock.now() });
    await confirmThrough(jo, 'test-op', 'jo');
    t.clock.advance(4 * MINUTE + 59 * 1000);
    expect((await jo.agent.json('POST', '/api/account/passkeys/options', {})).status).toBe(200);
    t.clock.advance(1000);
    expect(await body(await jo.agent.json('POST', '/api/account/passkeys/options', {}))).toEqual([400, CONFIRM_FIRST]);
    expect(await body(await firstPassword(jo))).toEqual([400, CONFIRM_FIRST]);

    events = [];
    const { sent, forms, answer } = await confirmThrough(jo, 'deaf-op', 'jo');
    expect(sent.searchParams.get('prompt')).toBe('login');
    // No login asked (only its consent, never given to this client): its session's old sign-in answered.
    expect(forms).toEqual(['consent']);
    expect([answer.status, await reasonOf(answer)]).toEqual([401, 'Deaf OP did not confirm a new sign-in: sign in with your password or passkey']);
    expect(of('upstream_sign_in_failed')).toEqual([{ event: 'upstream_sign_in_failed', fields: { upstream: 'deaf-op', ip: '127.0.0.1', reason: 'not_fresh' } }]);
    expect(of('upstream_confirmed')).toEqual([]);
    expect(await body(await firstPassword(jo))).toEqual([400, CONFIRM_FIRST]);
  });
});
