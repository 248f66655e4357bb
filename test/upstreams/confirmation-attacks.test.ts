/** Attack 51: confirmations through a linked upstream, across sessions, replayed, and what is not one. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEvent, AuditFields } from '../../src/audit.js';
import { NO_PASSWORD } from '../../src/domain/users.js';
import { addUpstream } from '../../src/upstreams/upstreams.js';
import { Agent, startServer, type TestServer } from '../helpers.js';
import { MailServer } from '../mail-server.js';
import { showUpstreamLogsOnFailure, signInAtUpstreamOverHttp, startUpstreamProvider, type UpstreamProvider } from '../upstream-provider.js';
import { body, CONFIRM_FIRST, confirmThrough, firstPassword, PASSWORD_REQUIRED, reasonOf, SECRET, upstreamAccountOn, type Browser } from './confirmation-fixture.js';


let t: TestServer;
let op: UpstreamProvider;
let smtp: MailServer;
let events: { event: AuditEvent; fields: AuditFields }[] = [];

/** A new account made through Test OP by `login` there (no password), signed in in a new browser. */
const upstreamAccount = (login: string, name: string) => upstreamAccountOn(t, login, name);
const of = (event: AuditEvent) => events.filter((e) => e.event === event);


/** A plain "Sign in with Test OP" as `login`, in a new browser (a new session here). */
async function signInThrough(login: string): Promise<Browser> {
  const b: Browser = { agent: new Agent(t), jar: new Map() };
  const started = await b.agent.form('/signin/upstream/test-op', {});
  const back = await signInAtUpstreamOverHttp(started.headers.get('location')!, login, b.jar);
  expect((await b.agent.fetch(back.pathname + back.search)).headers.get('location')).toBe('/account');
  return b;
}

describe('attack 51: confirming through a linked upstream', () => {
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
      clients: [{ client_id: 'honest', client_secret: SECRET, redirect_uris: callback('test-op') }],
      accounts: Object.fromEntries(['ada', 'bob', 'cy', 'dee', 'eve'].map((login) => [login, { sub: `op-${login}`, email: `${login}@op.example`, email_verified: true }])),
    });
    await addUpstream({ store: t.store, now: t.clock.now, secrets: t.config.sessionSecrets }, { name: 'Test OP', source: { issuer: op.issuer }, clientId: 'honest', clientSecret: SECRET });
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

  it('a confirmation started in one session of the account is not finished in another session of it (the callback is bound to the browser), and its callback counts once', async () => {
    const ada = await upstreamAccount('ada', 'ada_here');
    const thief = await signInThrough('ada');
    const started = await ada.agent.form('/signin/upstream/test-op', { confirm: 'true' });
    const back = await signInAtUpstreamOverHttp(started.headers.get('location')!, 'ada', ada.jar);
    const elsewhere = await thief.agent.fetch(back.pathname + back.search);
    expect([elsewhere.status, await reasonOf(elsewhere)]).toEqual([400, 'This sign-in did not start in this browser, or took too long: start again']);
    expect(await body(await firstPassword(thief))).toEqual([400, CONFIRM_FIRST]);
    // The owner's own callback still confirms, once; the same URL again is refused, in parallel too.
    const answers = await Promise.all([ada.agent.fetch(back.pathname + back.search), ada.agent.fetch(back.pathname + back.search)]);
    // The loser read the start before the winner took it: the upstream refuses its second use of the code (502).
    expect(answers.map((a) => a.status).sort()).toEqual([303, expect.toSatisfy((s: number) => s === 400 || s === 502)]);
    expect(of('upstream_confirmed')).toHaveLength(1);
    expect((await ada.agent.fetch(back.pathname + back.search)).status).toBe(400);
    // The other session of the account is not confirmed. (The owner's may not be either: the
    // loser's write-back can win over the winner's, so the confirmation is lost; fails closed.)
    expect(await body(await firstPassword(thief))).toEqual([400, CONFIRM_FIRST]);
  });

  it('a plain sign-in through the upstream, even while signed in to the account, is no confirmation', async () => {
    const bob = await upstreamAccount('bob', 'bob_here');
    const started = await bob.agent.form('/signin/upstream/test-op', { return_to: '/account' });
    const back = await signInAtUpstreamOverHttp(started.headers.get('location')!, 'bob', bob.jar);
    expect((await bob.agent.fetch(back.pathname + back.search)).headers.get('location')).toBe('/account');
    expect(await body(await firstPassword(bob))).toEqual([400, CONFIRM_FIRST]);
    expect(await body(await bob.agent.json('POST', '/api/account/deletion', { confirm: 'bob_here' }))).toEqual([400, CONFIRM_FIRST]);
    expect(of('upstream_confirmed')).toEqual([]);
  });

  it('a first password ends no other session (as documented), and gives that session no confirmation; the last link of an account that now has a password unlinks with it', async () => {
    const cy = await upstreamAccount('cy', 'cy_here');
    const other = await signInThrough('cy');
    expect((await confirmThrough(cy, 'test-op', 'cy')).answer.status).toBe(303);
    expect(await body(await firstPassword(cy))).toEqual([204, '']);
    expect((await other.agent.fetch('/api/account')).status).toBe(200);
    expect(await body(await other.agent.json('POST', '/api/account/deletion', { confirm: 'cy_here' }))).toEqual([400, PASSWORD_REQUIRED]);
    const [link] = await t.store.upstreamIdentities.listUpstreamIdentities(cy.user.id);
    expect(await body(await cy.agent.json('DELETE', `/api/account/upstream-identities/${link!.id}`, {}))).toEqual([400, PASSWORD_REQUIRED]);
    expect(await body(await cy.agent.json('DELETE', `/api/account/upstream-identities/${link!.id}`, { password: 'my first password' }))).toEqual([204, '']);
  });

  it('an identity linked to another account confirms nothing, and a confirmation for one account never counts for another signed in meanwhile', async () => {
    const dee = await upstreamAccount('dee', 'dee_here');
    const eve = await upstreamAccount('eve', 'eve_here');
    const { answer } = await confirmThrough({ agent: dee.agent, jar: new Map() }, 'test-op', 'eve');
    expect(answer.status).toBe(403);
    // Confirm dee, then sign this browser in to eve: nothing carried over; back to dee: nothing either.
    expect((await confirmThrough(dee, 'test-op', 'dee')).answer.status).toBe(303);
    const s = await dee.agent.form('/signin/upstream/test-op', {});
    const b = await signInAtUpstreamOverHttp(s.headers.get('location')!, 'eve', new Map());
    await dee.agent.fetch(b.pathname + b.search);
    expect(await body(await firstPassword(dee))).toEqual([400, CONFIRM_FIRST]);
    const s2 = await dee.agent.form('/signin/upstream/test-op', {});
    const b2 = await signInAtUpstreamOverHttp(s2.headers.get('location')!, 'dee', new Map());
    await dee.agent.fetch(b2.pathname + b2.search);
    expect(await body(await firstPassword(dee))).toEqual([400, CONFIRM_FIRST]);
    expect((await t.store.users.getUser(eve.user.id))!.passwordHash).toBe(NO_PASSWORD);
  });
});
