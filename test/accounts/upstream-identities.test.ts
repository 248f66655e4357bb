/**
 * The account's linked identities over HTTP (docs/account.md#linked-accounts): listing (oldest
 * first, exact JSON), unlinking with the password or a passkey confirmation (audited), another
 * user's link 404, a wrong or missing password, the account's last way in refused (409), two
 * unlinks racing for a password-less account's last two links, and the account page's "Linked
 * accounts" section. The upstreams are registered but never called: the links are made in the
 * store, as a sign-in through them would (test/upstreams/sign-in.test.ts does it for real).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/accounts/passwords.js';
import type { AuditEvent, AuditFields } from '../../src/audit.js';
import { NO_PASSWORD, type UserRecord } from '../../src/domain/users.js';
import { addUpstream, setUpstreamEnabled } from '../../src/upstreams/upstreams.js';
import { SoftAuthenticator } from '../fixtures/soft-authenticator.js';
import { Agent, signedInAgent, startServer, TEST_PASSWORD, type TestServer } from '../helpers.js';

let t: TestServer;
let events: { event: AuditEvent; fields: AuditFields }[] = [];
beforeAll(async () => {
  t = await startServer({}, { limits: { signInIp: { points: 1000, seconds: 600 } } });
  t.app.deps.audit = (event, fields) => events.push({ event, fields });
  const registry = { store: t.store, now: t.clock.now, secrets: t.config.sessionSecrets };
  await addUpstream(registry, { name: 'Acme', source: { issuer: 'https://op.example' }, clientId: 'acme-client', clientSecret: 'acme-secret' });
  await addUpstream(registry, { name: 'Globex', source: { issuer: 'https://globex.example' }, clientId: 'globex-client', clientSecret: 'globex-secret' });
});
beforeEach(() => {
  events = [];
});
afterAll(async () => t?.close());

const body = async (res: Response): Promise<unknown> => [res.status, await res.json()];
const unlinked = () => events.filter((e) => e.event === 'upstream_identity_unlinked');
const NOT_FOUND = { message: 'Linked account not found' };
const LAST = { message: 'This is the last way to sign in to your account: set a password or add a passkey first' };

let subjects = 0;
/** Links a new identity at `slug` to the user, as a sign-in through it would. */
function link(userId: number, slug: 'acme' | 'globex', email: string | null = null, createdAt = t.clock.now()) {
  return t.store.upstreamIdentities.linkUpstreamIdentity({ userId, upstreamSlug: slug, subject: `subject-${process.pid}-${++subjects}`, email, createdAt });
}

let names = 0;
/**
 * An account made through an upstream (no password, its Acme identity linked), signed in on a new
 * Agent. Its sign-in would go through Acme: a password set for the moment stands in for it, and
 * is taken away again (NO_PASSWORD) once the session is made.
 */
async function passwordlessAgent(o: { withPasskey?: boolean } = {}): Promise<{ agent: Agent; user: UserRecord; key?: SoftAuthenticator; passkeyId?: number }> {
  const name = `nopass_${process.pid}_${++names}`;
  const email = `${name}@example.com`;
  const user = await t.store.users.createUser(
    { name, email, passwordHash: NO_PASSWORD, emailVerifiedAt: t.clock.now(), upstreamIdentity: { upstreamSlug: 'acme', subject: `subject-${process.pid}-${++subjects}`, email } },
    t.clock.now(),
  );
  await t.store.knex('users').where({ id: user.id }).update({ password_hash: await hashPassword('for this sign-in only') });
  const agent = new Agent(t);
  await agent.signIn(user, 'for this sign-in only');
  let added: { key: SoftAuthenticator; passkeyId: number } | undefined;
  if (o.withPasskey) {
    const url = new URL(t.config.publicUrl);
    const key = new SoftAuthenticator({ rpId: url.hostname, origin: url.origin });
    const options = (await (await agent.json('POST', '/api/account/passkeys/options', { password: 'for this sign-in only' })).json()) as { challenge: string; user: { id: string } };
    const res = await agent.json('POST', '/api/account/passkeys', { credential: key.register(options) });
    expect(res.status).toBe(201);
    added = { key, passkeyId: ((await res.json()) as { id: number }).id };
  }
  await t.store.knex('users').where({ id: user.id }).update({ password_hash: NO_PASSWORD });
  return { agent, user: (await t.store.users.getUser(user.id))!, ...added };
}

/** Confirms the agent's session with its passkey (`reauthWithPasskey`): for 5 minutes no password is asked. */
async function confirmWithPasskey(agent: Agent, key: SoftAuthenticator): Promise<void> {
  const options = (await (await agent.json('POST', '/api/account/reauth/passkey/options')).json()) as { challenge: string };
  expect((await agent.json('POST', '/api/account/reauth/passkey', { credential: key.authenticate(options) })).status).toBe(204);
}

describe('linked identities', () => {
  it('lists the signed-in user\'s links, oldest first, and only to them', async () => {
    expect(await body(await new Agent(t).fetch('/api/account/upstream-identities'))).toEqual([401, { message: 'Sign in first' }]);
    const { agent, user } = await signedInAgent(t);
    expect(await body(await agent.fetch('/api/account/upstream-identities'))).toEqual([200, { identities: [] }]);
    const now = t.clock.now();
    const later = await link(user.id, 'globex', null, now + 1000);
    const first = await link(user.id, 'acme', 'ada@acme.example', now);
    await t.store.upstreamIdentities.touchUpstreamIdentity(first.id, now + 5000);
    await link((await signedInAgent(t)).user.id, 'acme', 'someone@acme.example');
    const res = await agent.fetch('/api/account/upstream-identities');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await body(res)).toEqual([
      200,
      {
        identities: [
          { id: first.id, upstream: 'acme', upstream_name: 'Acme', subject: first.subject, email: 'ada@acme.example', linked_at: now, last_used_at: now + 5000 },
          { id: later.id, upstream: 'globex', upstream_name: 'Globex', subject: later.subject, linked_at: now + 1000 },
        ],
      },
    ]);
  });

  it('unlinks one with the password: 204, gone from the list, audited; then 404', async () => {
    const { agent, user } = await signedInAgent(t);
    const acme = await link(user.id, 'acme', 'ada@acme.example');
    const globex = await link(user.id, 'globex');
    const res = await agent.json('DELETE', `/api/account/upstream-identities/${acme.id}`, { password: TEST_PASSWORD });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect(unlinked()).toEqual([{ event: 'upstream_identity_unlinked', fields: { userId: user.id, upstream: 'acme', ip: '127.0.0.1' } }]);
    expect(await body(await agent.fetch('/api/account/upstream-identities'))).toEqual([
      200,
      { identities: [{ id: globex.id, upstream: 'globex', upstream_name: 'Globex', subject: globex.subject, linked_at: globex.createdAt }] },
    ]);
    expect(await body(await agent.json('DELETE', `/api/account/upstream-identities/${acme.id}`, { password: TEST_PASSWORD }))).toEqual([404, NOT_FOUND]);
    // An account with a password may unlink its last link: the password still signs in.
    expect((await agent.json('DELETE', `/api/account/upstream-identities/${globex.id}`, { password: TEST_PASSWORD })).status).toBe(204);
    expect(await t.store.upstreamIdentities.listUpstreamIdentities(user.id)).toEqual([]);
    expect(unlinked()).toHaveLength(2);
  });

  it('answers 404 for another user\'s link and an unknown id, and unlinks nothing', async () => {
    const { agent } = await signedInAgent(t);
    const other = await signedInAgent(t);
    const theirs = await link(other.user.id, 'acme');
    expect(await body(await agent.json('DELETE', `/api/account/upstream-identities/${theirs.id}`, { password: TEST_PASSWORD }))).toEqual([404, NOT_FOUND]);
    expect(await body(await agent.json('DELETE', '/api/account/upstream-identities/999999', { password: TEST_PASSWORD }))).toEqual([404, NOT_FOUND]);
    expect((await t.store.upstreamIdentities.listUpstreamIdentities(other.user.id)).map((i) => i.id)).toEqual([theirs.id]);
    expect(unlinked()).toEqual([]);
  });

  it('asks for the password: missing 400, wrong 403, and keeps the link', async () => {
    const { agent, user } = await signedInAgent(t);
    const acme = await link(user.id, 'acme');
    expect(await body(await agent.json('DELETE', `/api/account/upstream-identities/${acme.id}`))).toEqual([400, { message: 'Body field password is required' }]);
    expect(await body(await agent.json('DELETE', `/api/account/upstream-identities/${acme.id}`, { password: 'not the password' }))).toEqual([403, { message: 'The password is wrong' }]);
    const noCsrf = await agent.fetch(`/api/account/upstream-identities/${acme.id}`, { method: 'DELETE', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ password: TEST_PASSWORD }) });
    expect(await body(noCsrf)).toEqual([403, { message: 'Invalid CSRF token' }]);
    expect((await t.store.upstreamIdentities.listUpstreamIdentities(user.id)).map((i) => i.id)).toEqual([acme.id]);
    expect(unlinked()).toEqual([]);
  });

  it('never unlinks the last way in: a password-less account without a passkey keeps its one link (409)', async () => {
    const { agent, user } = await passwordlessAgent();
    const [only] = await t.store.upstreamIdentities.listUpstreamIdentities(user.id);
    // Said before any password is asked for: the account has none to give.
    expect(await body(await agent.json('DELETE', `/api/account/upstream-identities/${only!.id}`))).toEqual([409, LAST]);
    expect(await body(await agent.json('DELETE', `/api/account/upstream-identities/${only!.id}`, { password: 'anything' }))).toEqual([409, LAST]);
    expect((await t.store.upstreamIdentities.listUpstreamIdentities(user.id)).map((i) => i.id)).toEqual([only!.id]);
    // With a second link, one of them may go, once confirmed: it has no password, so a wrong one is refused.
    const globex = await link(user.id, 'globex');
    expect(await body(await agent.json('DELETE', `/api/account/upstream-identities/${globex.id}`, { password: 'anything' }))).toEqual([403, { message: 'The password is wrong' }]);
    expect(unlinked()).toEqual([]);
  });

  it('lets a password-less account confirm with a passkey; its passkey is then a way in, and never removed as the last (409)', async () => {
    const { agent, user, key, passkeyId } = await passwordlessAgent({ withPasskey: true });
    const [only] = await t.store.upstreamIdentities.listUpstreamIdentities(user.id);
    // It has no password to give: it is told to confirm.
    expect(await body(await agent.json('DELETE', `/api/account/upstream-identities/${only!.id}`))).toEqual([
      400,
      { message: 'Confirm it is you first, through an account linked to yours or with a passkey' },
    ]);
    await confirmWithPasskey(agent, key!);
    expect((await agent.json('DELETE', `/api/account/upstream-identities/${only!.id}`)).status).toBe(204);
    expect(await t.store.upstreamIdentities.listUpstreamIdentities(user.id)).toEqual([]);
    expect(unlinked()).toEqual([{ event: 'upstream_identity_unlinked', fields: { userId: user.id, upstream: 'acme', ip: '127.0.0.1' } }]);
    // The passkey is now the last way in: removing it is 409, with the confirmation and, said before any is asked for, without.
    const lastPasskey = { message: 'This is the last way to sign in to your account: set a password or link another account first' };
    expect(await body(await agent.json('DELETE', `/api/account/passkeys/${passkeyId!}`))).toEqual([409, lastPasskey]);
    t.clock.advance(6 * 60_000);
    expect(await body(await agent.json('DELETE', `/api/account/passkeys/${passkeyId!}`))).toEqual([409, lastPasskey]);
    expect((await t.store.passkeys.listPasskeys(user.id)).map((p) => p.id)).toEqual([passkeyId]);
  });

  it('of two unlinks racing for a password-less account\'s last two links, one wins and one is 409 (10 rounds)', async () => {
    const { agent, user, key, passkeyId } = await passwordlessAgent({ withPasskey: true });
    await confirmWithPasskey(agent, key!);
    // The confirmation stands for 5 minutes; with the passkey removed, the links are the only way in.
    expect((await agent.json('DELETE', `/api/account/passkeys/${passkeyId!}`)).status).toBe(204);
    expect(await t.store.passkeys.listPasskeys(user.id)).toEqual([]);
    for (let round = 0; round < 10; round++) {
      await link(user.id, round % 2 === 0 ? 'globex' : 'acme');
      const links = await t.store.upstreamIdentities.listUpstreamIdentities(user.id);
      expect(links).toHaveLength(2);
      const answers = await Promise.all(links.map((l) => agent.json('DELETE', `/api/account/upstream-identities/${l.id}`)));
      const outcomes = await Promise.all(answers.map(async (r) => [r.status, r.status === 204 ? await r.text() : await r.json()]));
      expect(outcomes.sort((a, b) => (a[0] as number) - (b[0] as number))).toEqual([
        [204, ''],
        [409, LAST],
      ]);
      expect(await t.store.upstreamIdentities.listUpstreamIdentities(user.id)).toHaveLength(1);
    }
    expect(unlinked()).toHaveLength(10);
  });
});

describe('the account page\'s linked accounts', () => {
  /** The page's "Linked accounts" section, as sent, and the page's CSRF token. */
  async function section(agent: Agent): Promise<{ html: string | undefined; csrf: string }> {
    const page = await (await agent.fetch('/account')).text();
    const csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(page)![1]!;
    return { html: /<section id="upstream-identities"[\s\S]*?<\/section>/.exec(page)?.[0], csrf };
  }

  it('lists the links (by script) and offers a form to link each enabled upstream not linked yet', async () => {
    const { agent, user } = await signedInAgent(t);
    await link(user.id, 'acme');
    const { html, csrf } = await section(agent);
    const form = (slug: string, name: string, hidden: boolean) =>
      `<form method="post" action="/signin/upstream/${slug}" class="stack link-upstream" data-upstream="${slug}" aria-label="Link ${name}"${hidden ? ' hidden' : ''}>
<input type="hidden" name="_csrf" value="${csrf}">
<input type="hidden" name="link" value="true">
<label>Your password, to link ${name} <input type="password" name="password" autocomplete="current-password" maxlength="256"></label>
<button type="submit" class="secondary" id="link-upstream-${slug}">Link ${name}</button>
</form>`;
    expect(html).toBe(`<section id="upstream-identities" class="card"><h2>Linked accounts</h2>
<p>Accounts you have elsewhere that sign you in here. Linking or unlinking one asks for your password beside its button (leave it empty for 5 minutes after confirming with a passkey). The last way to sign in cannot be unlinked.</p>
<ul id="upstream-identity-list"><li>Loading…</li></ul>
<div class="result" id="upstream-identities-result"><p role="status" class="ok" id="upstream-identities-result-status"></p><p role="alert" class="error" id="upstream-identities-result-error"></p></div>
${form('acme', 'Acme', true)}${form('globex', 'Globex', false)}
</section>`);
    expect(await (await agent.fetch('/account')).text()).toContain('<li><a href="#upstream-identities">Linked accounts</a></li>');
  });

  it('is left out with no upstream enabled and nothing linked, and shown for a link alone', async () => {
    const { agent, user } = await signedInAgent(t);
    try {
      await setUpstreamEnabled(t.store, 'acme', false);
      await setUpstreamEnabled(t.store, 'globex', false);
      const page = await (await agent.fetch('/account')).text();
      expect(page).not.toContain('upstream-identities');
      expect(page).not.toContain('Linked accounts');
      await link(user.id, 'globex');
      const { html } = await section(agent);
      expect(html).toContain('<ul id="upstream-identity-list"><li>Loading…</li></ul>');
      expect(html).not.toContain('<form');
    } finally {
      await setUpstreamEnabled(t.store, 'acme', true);
      await setUpstreamEnabled(t.store, 'globex', true);
    }
  });
});
