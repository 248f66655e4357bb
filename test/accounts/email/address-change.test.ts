/**
 * Changing the address (postChangeEmail, then getVerifyEmail with the link sent to the new address):
 * password required, notice to the old address, nothing changes until the link is followed.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Agent, makeClient, makeCode, signedInAgent, startServer, tokenRequest, TEST_PASSWORD, type TestServer } from '../../helpers.js';
import { linkOf, MailServer } from '../../mail-server.js';

let t: TestServer;
let smtp: MailServer;
let n = 0;

beforeAll(async () => {
  smtp = await new MailServer().start();
  t = await startServer({ SMTP_URL: smtp.url, PUBLIC_URL: 'https://idp.example' }, { limits: { emailChange: { points: 4, seconds: 3600 } } });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});
beforeEach(() => smtp.clear());

const newAddress = () => `moved_${process.pid}_${++n}@new.example`;

async function whoisEmail(userId: number): Promise<unknown> {
  const owner = await signedInAgent(t);
  const client = await makeClient(t, owner.user.id);
  const code = await makeCode(t, { userId, clientId: client.clientId, scope: 'userinfo email' });
  const res = await tokenRequest(t, { grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: client.clientSecret });
  const { access_token } = (await res.json()) as { access_token: string };
  const whois = await fetch(`${t.baseUrl}/api/oauth/whois`, { headers: { Authorization: `Bearer ${access_token}` } });
  return ((await whois.json()) as { email: string }).email;
}

describe('postChangeEmail', () => {
  it('mails a link to the new address and a notice to the old; the address changes only when the link is followed', async () => {
    const { agent, user } = await signedInAgent(t);
    const target = newAddress();
    const res = await agent.form('/account/email', { email: ` ${target.toUpperCase()} `, password: TEST_PASSWORD });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain(`We sent a link to <strong>${target}</strong>. Your address changes when you follow it (within 24 hours); until then it stays <strong>${user.email}</strong>.`);

    const notice = await smtp.next(user.email);
    expect(notice.mail.subject).toBe('A change of your email address was requested');
    expect(notice.mail.text).toContain(`asked to change its email address to ${target}`);
    expect(notice.mail.text).not.toMatch(/token=/);
    expect(notice.mail.html).toContain('asked to change its email address to');
    const link = await smtp.next(target);
    expect(link.mail.subject).toBe('Confirm your new email address');
    const url = new URL(linkOf(link));
    expect(url.origin + url.pathname).toBe('https://idp.example/verify-email');

    // Until then: the old address, still verified, is what apps see.
    const pending = (await t.store.users.getUser(user.id))!;
    expect(pending.email).toBe(user.email);
    expect(pending.emailVerifiedAt).toBe(user.emailVerifiedAt);
    expect(await whoisEmail(user.id)).toBe(user.email);

    const followed = await agent.fetch(url.pathname + url.search);
    expect(followed.status).toBe(200);
    expect(await followed.text()).toContain(`Your account's email address is now <strong id="email">${target}</strong>, verified.`);
    const changed = (await t.store.users.getUser(user.id))!;
    expect(changed.email).toBe(target);
    expect(changed.emailVerifiedAt).toBe(t.clock.now());
    expect(await whoisEmail(user.id)).toBe(target);
    // The new address signs in; the old one names nobody now.
    await new Agent(t).signIn({ name: target });
    expect((await new Agent(t).form('/signin', { name: user.email, password: TEST_PASSWORD })).status).toBe(401);

    // Opened again: what it was for is done, and the page says so.
    const again = await new Agent(t).fetch(url.pathname + url.search);
    expect(again.status).toBe(200);
    expect(await again.text()).toContain(`<p id="notice">This link has been used already, and your account's email address is now <strong id="email">${target}</strong>, verified.</p>`);
  });

  it('refuses a wrong password, the current address, an invalid or taken one, and sends nothing', async () => {
    const { agent, user } = await signedInAgent(t);
    const { user: other } = await signedInAgent(t);
    const cases: [Record<string, string>, number, string][] = [
      [{ email: newAddress(), password: 'wrong password' }, 403, 'The current password is wrong'],
      [{ email: user.email, password: TEST_PASSWORD }, 400, 'This already is your email address'],
      [{ email: 'not an address', password: TEST_PASSWORD }, 400, 'Email address is not valid'],
      [{ email: other.email, password: TEST_PASSWORD }, 409, 'Email address is already registered'],
    ];
    // The account page again: the reason right after the form, the typed address kept, the wrong field marked.
    for (const [fields, status, message] of cases) {
      const res = await agent.form('/account/email', fields);
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const page = await res.text();
      expect(page).toContain('<h1>Your account</h1>');
      expect(page).toContain(`</form>\n<div class="result" id="change-email-result"><p role="status" class="ok" id="change-email-result-status"></p><p role="alert" class="error" id="change-email-result-error">Changing the address failed: ${message}</p></div>`);
      const marked = ' aria-invalid="true" aria-describedby="change-email-result-error" autofocus';
      const typed = fields.email!.replace(/&/g, '&amp;');
      expect(page).toContain(`id="new-email" autocomplete="email" required maxlength="254" value="${typed}"${status === 403 ? '' : marked}>`);
      expect(page).toContain(`id="change-email-password" autocomplete="current-password" required maxlength="256"${status === 403 ? marked : ''}>`);
    }
    const limited = await agent.form('/account/email', { email: newAddress(), password: TEST_PASSWORD });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await limited.text()).toMatch(/id="change-email-result-error">Changing the address failed: [^<]+<\/p>/);
    expect(smtp.messages).toHaveLength(0);
    expect(await t.store.knex('email_links').where({ user_id: user.id })).toHaveLength(0);
    expect((await new Agent(t).form('/account/email', { email: newAddress(), password: TEST_PASSWORD })).status).toBe(401);
  });

  it('a change link whose address another account took meanwhile changes nothing (409 page)', async () => {
    const { agent, user } = await signedInAgent(t);
    const target = newAddress();
    expect((await agent.form('/account/email', { email: target, password: TEST_PASSWORD })).status).toBe(200);
    const url = new URL(linkOf(await smtp.next(target)));
    const taker = new Agent(t);
    expect((await taker.form('/signup', { name: `taker_${process.pid}_${++n}`, email: target, password: 'correct horse battery' })).status).toBe(200);
    const res = await agent.fetch(url.pathname + url.search);
    expect(res.status).toBe(409);
    expect(await res.text()).toContain('Another account uses this address by now, so the change was not made');
    expect((await t.store.users.getUser(user.id))!.email).toBe(user.email);
  });

  it('an expired change link (24 h) changes nothing; following one voids the other pending changes', async () => {
    const { agent, user } = await signedInAgent(t);
    const first = newAddress();
    const second = newAddress();
    expect((await agent.form('/account/email', { email: first, password: TEST_PASSWORD })).status).toBe(200);
    expect((await agent.form('/account/email', { email: second, password: TEST_PASSWORD })).status).toBe(200);
    const firstUrl = new URL(linkOf(await smtp.next(first)));
    const secondUrl = new URL(linkOf(await smtp.next(second)));

    t.clock.advance(24 * 3600 * 1000);
    try {
      const expired = await new Agent(t).fetch(firstUrl.pathname + firstUrl.search);
      expect(expired.status).toBe(400);
      expect(await expired.text()).toContain('This link has expired. Ask for a new one.');
    } finally {
      t.clock.advance(-24 * 3600 * 1000);
    }
    expect((await t.store.users.getUser(user.id))!.email).toBe(user.email);

    expect((await agent.fetch(secondUrl.pathname + secondUrl.search)).status).toBe(200);
    const voided = await new Agent(t).fetch(firstUrl.pathname + firstUrl.search);
    expect(voided.status).toBe(400);
    expect((await t.store.users.getUser(user.id))!.email).toBe(second);
  });

  it('a mail server that refuses: a clear 503 page and no pending change', async () => {
    const { agent, user } = await signedInAgent(t);
    smtp.refuse = 'Try later';
    try {
      const res = await agent.form('/account/email', { email: newAddress(), password: TEST_PASSWORD });
      expect(res.status).toBe(503);
      expect(await res.text()).toContain('The email could not be sent right now; please try again in a few minutes');
    } finally {
      smtp.refuse = undefined;
    }
    expect(await t.store.knex('email_links').where({ user_id: user.id })).toHaveLength(0);
  });
});
