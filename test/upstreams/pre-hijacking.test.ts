/**
 * Pre-account hijacking (Sudhodanan and Paverd, "Pre-hijacked accounts", USENIX Security 2022, the
 * classic-federated merge), the attacker's steps over HTTP against the real app with
 * node-oidc-provider as the upstream (issue 50, hole 1; docs/account.md#no-account-pre-hijacking):
 * an attacker signs up with the victim's address (never verified) and links his own upstream
 * account; the victim, signing in with her upstream, must never end with the attacker's way in
 * attached to her account. Runs on SQLite and, with TEST_DATABASE=postgres, on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUpstream } from '../../src/upstreams/upstreams.js';
import { Agent, makeEmailLink, startServer, type TestServer } from '../helpers.js';
import { signInAtUpstreamOverHttp, startUpstreamProvider, type UpstreamProvider } from '../upstream-provider.js';

const CLIENT = { client_id: 'identity-service', client_secret: 'upstream-client-secret-for-tests' };
const VICTIM_EMAIL = 'victim@mail.example';
const ATTACKER_PASSWORD = 'attacker-chose-this';

let t: TestServer;
let op: UpstreamProvider;

beforeAll(async () => {
  t = await startServer({}, { limits: { upstreamIp: { points: 1000, seconds: 600 }, signInIp: { points: 1000, seconds: 600 }, signUpIp: { points: 1000, seconds: 600 } } });
  t.config.publicUrl = t.baseUrl;
  op = await startUpstreamProvider({
    clients: [{ ...CLIENT, redirect_uris: [`${t.baseUrl}/signin/upstream/test-op/callback`] }],
    accounts: {
      victim: { sub: 'op-victim', email: VICTIM_EMAIL, email_verified: true, preferred_username: 'victim' },
      attacker: { sub: 'op-attacker', email: 'attacker@op.example', email_verified: true, preferred_username: 'attacker' },
      careful: { sub: 'op-careful', email: 'careful@mail.example', email_verified: true },
    },
  });
  await addUpstream({ store: t.store, now: t.clock.now, secrets: t.config.sessionSecrets }, { name: 'Test OP', source: { issuer: op.issuer }, clientId: CLIENT.client_id, clientSecret: CLIENT.client_secret });
});
afterAll(async () => {
  await op?.close();
  await t?.close();
});

/** The error line of a page, as shown. */
async function reasonOf(res: Response): Promise<string | undefined> {
  return /<p class="error" id="error-message"[^>]*>([^<]*)<\/p>/.exec(await res.text())?.[1];
}

/** A whole upstream sign-in in `agent`'s browser as `login` at the upstream; the callback's answer. */
async function throughUpstream(agent: Agent, login: string, fields: Record<string, string> = {}): Promise<Response> {
  const started = await agent.form('/signin/upstream/test-op', fields);
  if (started.status !== 303) return started;
  const callback = await signInAtUpstreamOverHttp(started.headers.get('location')!, login);
  return agent.fetch(`${callback.pathname}${callback.search}`);
}

/** Whom `agent`'s session is signed in as (the account API's `user.id`), if anyone. */
async function signedInAs(agent: Agent): Promise<number | undefined> {
  const res = await agent.fetch('/api/account');
  return res.status === 200 ? ((await res.json()) as { user: { id: number } }).user.id : undefined;
}

describe('pre-account hijacking', () => {
  it("the attacker's account made with the victim's unproven address takes no link, offers her none, and her reset leaves him nothing", async () => {
    // 1. The attacker signs up with the victim's address (he cannot prove it) and his own password.
    const attacker = new Agent(t);
    const signUp = await attacker.form('/signup', { name: 'victims_name', email: VICTIM_EMAIL, password: ATTACKER_PASSWORD });
    expect(signUp.status).toBe(200);
    expect((await attacker.form('/signin', { name: 'victims_name', password: ATTACKER_PASSWORD })).status).toBe(303);
    const accountId = (await signedInAs(attacker))!;
    expect((await t.store.users.getUser(accountId))!.emailVerifiedAt).toBeNull();

    // 2. He links his own upstream account to it: refused before he is sent there.
    const link = await throughUpstream(attacker, 'attacker', { link: 'true', password: ATTACKER_PASSWORD });
    expect([link.status, await reasonOf(link)]).toEqual([403, 'Verify your email address before you link another account to this one']);
    expect(await t.store.upstreamIdentities.listUpstreamIdentities(accountId)).toEqual([]);

    // 3. The victim signs in with her upstream, which proves the address: no link is offered to an
    //    account that never proved it; she is told how to prove it.
    const victim = new Agent(t);
    const offered = await throughUpstream(victim, 'victim');
    expect([offered.status, await reasonOf(offered)]).toEqual([
      403,
      `An account here uses ${VICTIM_EMAIL}, but that address was never proven to be its owner&#39;s, so it cannot be linked. ` +
        'If it is yours, reset its password (the mail proves the address and removes every other way into that account), then sign in with Test OP again.',
    ]);
    expect(await signedInAs(victim)).toBeUndefined();

    // 4. She resets the password by mail: the address is proven, the attacker's session ends.
    const token = await makeEmailLink(t, accountId, 'reset', null);
    expect((await victim.form('/reset-password', { token, password: 'the victims own password' })).status).toBe(200);
    expect((await t.store.users.getUser(accountId))!.emailVerifiedAt).toBe(t.clock.now());
    expect(await signedInAs(attacker)).toBeUndefined();

    // 5. Her upstream now offers the link; she signs in to the account, sees its ways in, confirms.
    expect((await throughUpstream(victim, 'victim')).headers.get('location')).toBe('/signin/link');
    expect((await victim.form('/signin', { name: 'victims_name', password: 'the victims own password', return_to: '/signin/link' })).status).toBe(303);
    const page = await (await victim.fetch('/signin/link')).text();
    expect(/<ul id="upstream-link-ways-in">(.*?)<\/ul>/s.exec(page)?.[1]).toBe('<li>its password</li>');
    expect((await victim.form('/signin/link', { decision: 'link' })).status).toBe(303);
    expect((await t.store.upstreamIdentities.listUpstreamIdentities(accountId)).map((l) => l.subject)).toEqual(['op-victim']);

    // 6. The attacker's upstream account signs in to nothing of hers.
    const again = new Agent(t);
    const attempt = await throughUpstream(again, 'attacker');
    expect(attempt.headers.get('location')).toBe('/signup/upstream');
    expect(await signedInAs(again)).toBeUndefined();
    expect(await signedInAs(attacker)).toBeUndefined();
  });

  it('a link confirmation is refused once the account changed its password since the identity came back', async () => {
    const owner = new Agent(t);
    expect((await owner.form('/signup', { name: 'careful_owner', email: 'careful@mail.example', password: 'owner password 1' })).status).toBe(200);
    expect((await owner.form('/signin', { name: 'careful_owner', password: 'owner password 1' })).status).toBe(303);
    const id = (await signedInAs(owner))!;
    await t.store.knex('users').where({ id }).update({ email_verified_at: t.clock.now() });
    const browser = new Agent(t);
    expect((await throughUpstream(browser, 'careful')).headers.get('location')).toBe('/signin/link');
    t.clock.advance(1000);
    expect((await browser.form('/signin', { name: 'careful_owner', password: 'owner password 1' })).status).toBe(303);
    // The owner changes the password (elsewhere) before this browser confirms.
    t.clock.advance(1000);
    expect((await owner.json('POST', '/api/account/password', { current_password: 'owner password 1', new_password: 'owner password 2' })).status).toBe(204);
    const refused = await browser.form('/signin/link', { decision: 'link' });
    expect(refused.status).toBe(401);
    expect(await t.store.upstreamIdentities.listUpstreamIdentities(id)).toEqual([]);
  });
});
