/**
 * Verified addresses over a real SMTP server: sign-up mails a link (getVerifyEmail), the account
 * page shows the state and resends (postResendVerification), and the `email` scope is refused for an
 * unverified address wherever a code is issued.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEvent, AuditFields } from '../../../src/audit.js';
import { seedDemo } from '../../../src/demo.js';
import { issueCode } from '../../../src/oauth/codes.js';
import { hashSecret } from '../../../src/security/secrets.js';
import { Agent, makeClient, makeUser, signedInAgent, startServer, tokenRequest, type TestServer } from '../../helpers.js';
import { linkOf, MailServer } from '../../mail-server.js';

let t: TestServer;
let smtp: MailServer;
let n = 0;

beforeAll(async () => {
  smtp = await new MailServer().start();
  t = await startServer(
    { SMTP_URL: smtp.url, MAIL_FROM: 'Identity <no-reply@idp.example>', PUBLIC_URL: 'https://idp.example' },
    { limits: { verificationResend: { points: 2, seconds: 3600 }, signUpIp: { points: 1000, seconds: 3600 } } },
  );
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});
beforeEach(() => smtp.clear());

async function signUp(): Promise<{ agent: Agent; name: string; email: string }> {
  const name = `ve_${process.pid}_${++n}`;
  const email = `${name}@mail.example`;
  const agent = new Agent(t);
  const res = await agent.form('/signup', { name, email, password: 'correct horse battery' });
  expect(res.status).toBe(200);
  expect(await res.text()).toContain(`We sent a mail to <strong>${email}</strong>`);
  // Sign-up signs nobody in (its answer must not depend on the address being new): sign in now.
  await agent.signIn({ name }, 'correct horse battery');
  return { agent, name, email };
}

/** The path and query of a mailed link (the mail says https://idp.example/...; the test server listens elsewhere). */
function pathOf(link: string): string {
  const url = new URL(link);
  expect(url.origin).toBe('https://idp.example');
  return url.pathname + url.search;
}

describe('sign-up mails a verification link', () => {
  it('delivers one message over SMTP with a text and an HTML part carrying the same single-use link, and nothing secret', async () => {
    const { name, email } = await signUp();
    const d = await smtp.next(email);
    expect(d.to).toEqual([email]);
    expect(d.from).toBe('no-reply@idp.example');
    expect(d.mail.subject).toBe('Confirm your email address');
    const link = linkOf(d);
    expect(link).toMatch(/^https:\/\/idp\.example\/verify-email\?token=[A-Za-z0-9_-]{43}$/);
    expect(d.mail.html).toContain(`href="${link}"`);
    expect(d.mail.text).toContain(`Hello ${name}`);
    expect(d.raw).not.toContain('correct horse battery');
    // Only the token's hash is stored.
    const token = new URL(link).searchParams.get('token')!;
    const stored = await t.store.emailLinks.getEmailLink(hashSecret(token));
    expect(stored).toMatchObject({ purpose: 'verify', email, usedAt: null });
    expect(stored!.expiresAt - stored!.createdAt).toBe(24 * 3600 * 1000);
    expect((await t.store.users.getUserByName(name))!.emailVerifiedAt).toBeNull();
  });

  it('following the link verifies the address, once; the account page shows the state', async () => {
    const { agent, name, email } = await signUp();
    const before = await (await agent.fetch('/account')).text();
    expect(before).toContain('<strong id="email-state" data-verified="false">not verified</strong>');
    expect(before).toContain('id="resend-verification"');
    const path = pathOf(linkOf(await smtp.next(email)));
    const res = await agent.fetch(path);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await res.text()).toContain(`Your email address <strong id="email">${email}</strong> is verified.`);
    expect((await t.store.users.getUserByName(name))!.emailVerifiedAt).toBe(t.clock.now());
    const after = await (await agent.fetch('/account')).text();
    expect(after).toContain('<strong id="email-state" data-verified="true">verified</strong>');
    expect(after).not.toContain('id="resend-verification"');

    // Opened again: the address is verified, and the page says so (not an error).
    for (const browser of [new Agent(t), agent]) {
      const again = await browser.fetch(path);
      expect(again.status).toBe(200);
      const page = await again.text();
      expect(page).toContain(`<h1>Address verified</h1>\n<p id="notice">This link has been used already, and your email address <strong id="email">${email}</strong> is verified.</p>`);
      expect(page).toContain(browser === agent ? '<a href="/account">Back to your account</a>' : '<a href="/signin">Sign in</a>');
    }
  });

  it('an expired link (24 h on the injected clock) is a clear page and verifies nothing', async () => {
    const { name, email } = await signUp();
    const path = pathOf(linkOf(await smtp.next(email)));
    t.clock.advance(24 * 3600 * 1000);
    try {
      const res = await new Agent(t).fetch(path);
      expect(res.status).toBe(400);
      expect(await res.text()).toContain(
        '<p class="error" id="error-message">This link has expired. Ask for a new one.</p>\n<p><a class="button" id="forward" href="/signin?return_to=%2Faccount">Sign in to your account</a> (it sends a new link)</p>',
      );
    } finally {
      t.clock.advance(-24 * 3600 * 1000);
    }
    expect((await t.store.users.getUserByName(name))!.emailVerifiedAt).toBeNull();
  });

  it('a tampered, cut or missing token is a clear page and verifies nothing', async () => {
    const { name, email } = await signUp();
    const link = new URL(linkOf(await smtp.next(email)));
    const token = link.searchParams.get('token')!;
    const flipped = (token[0] === 'A' ? 'B' : 'A') + token.slice(1);
    for (const bad of [flipped, token.slice(0, 40), `${token}x`, '%00', '']) {
      const res = await new Agent(t).fetch(`/verify-email?token=${encodeURIComponent(bad)}`);
      expect(res.status).toBe(400);
      const body = await res.text();
      if (bad !== '') expect(body).toContain('This link is not valid: it may be incomplete or changed. Ask for a new one.');
    }
    expect((await new Agent(t).fetch('/verify-email')).status).toBe(400);
    expect((await t.store.users.getUserByName(name))!.emailVerifiedAt).toBeNull();
  });

  it('a reset link does not verify an address', async () => {
    const { name, email } = await signUp();
    await smtp.next(email);
    const res = await new Agent(t).form('/forgot-password', { login: name });
    expect(res.status).toBe(200);
    await t.app.deps.mailer.idle();
    const reset = smtp.to(email).find((m) => m.mail.subject === 'Reset your password')!;
    const token = new URL(linkOf(reset)).searchParams.get('token')!;
    const res2 = await new Agent(t).fetch(`/verify-email?token=${token}`);
    expect(res2.status).toBe(400);
    expect((await t.store.users.getUserByName(name))!.emailVerifiedAt).toBeNull();
  });
});

describe('sign-up with a registered address', () => {
  it("mails the address's owner that someone tried, with a reset link that works; no account, no verification link", async () => {
    const owner = await signUp();
    await smtp.next(owner.email);
    smtp.clear();
    const intruder = `intr_${process.pid}_${++n}`;
    const res = await new Agent(t).form('/signup', { name: intruder, email: owner.email.toUpperCase(), password: 'someone elses password' });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain(`We sent a mail to <strong>${owner.email}</strong>`);
    const d = await smtp.next(owner.email);
    expect(d.mail.subject).toBe('Someone tried to sign up with your address');
    expect(d.mail.text).toContain(`Hello ${owner.name}, someone (perhaps you) tried to create a new account with this email address.`);
    expect(d.raw).not.toContain('someone elses password');
    expect(d.raw).not.toContain(intruder);
    const link = linkOf(d);
    expect(link).toMatch(/^https:\/\/idp\.example\/reset-password\?token=[A-Za-z0-9_-]{43}$/);
    const stored = await t.store.emailLinks.getEmailLink(hashSecret(new URL(link).searchParams.get('token')!));
    expect(stored).toMatchObject({ purpose: 'reset', usedAt: null });
    const page = await new Agent(t).fetch(pathOf(link));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(owner.name);
    expect(await t.store.users.getUserByName(intruder)).toBeUndefined();
    await t.app.deps.mailer.idle();
    expect(smtp.to(owner.email)).toHaveLength(1);
  });

  it('sends the owner at most 3 such mails an hour (the forgot-password per-account limit); the answer stays the same', async () => {
    const owner = await signUp();
    await smtp.next(owner.email);
    smtp.clear();
    for (let i = 0; i < 5; i++) {
      const res = await new Agent(t).form('/signup', { name: `rep_${process.pid}_${++n}`, email: owner.email, password: 'correct horse battery' });
      expect(res.status).toBe(200);
    }
    await t.app.deps.mailer.idle();
    expect(smtp.to(owner.email).map((d) => d.mail.subject)).toEqual(Array.from({ length: 3 }, () => 'Someone tried to sign up with your address'));
  });
});

describe('postResendVerification', () => {
  it('sends a new link (the earlier one still works), rate-limited per account', async () => {
    const { agent, name, email } = await signUp();
    const first = linkOf(await smtp.next(email));
    const res = await agent.form('/account/verification', { return_to: '/oauth?client_id=x' });
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain(`A new verification link is on its way to <strong>${email}</strong>.`);
    expect(page).toContain('<a id="return" href="/oauth?client_id=x">');
    expect(smtp.to(email)).toHaveLength(2);
    expect(linkOf(smtp.to(email)[1]!)).not.toBe(first);

    expect((await agent.form('/account/verification', {})).status).toBe(200);
    const limited = await agent.form('/account/verification', {});
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await limited.text()).toContain('Too many attempts, retry in');
    expect(smtp.to(email)).toHaveLength(3);

    expect((await agent.fetch(pathOf(first))).status).toBe(200);
    expect((await t.store.users.getUserByName(name))!.emailVerifiedAt).not.toBeNull();
  });

  it('refuses an address that is already verified, a foreign return_to, no session and no CSRF token', async () => {
    const { agent } = await signedInAgent(t);
    const res = await agent.form('/account/verification', {});
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('Your email address is already verified');
    expect(smtp.messages).toHaveLength(0);

    const { agent: other } = await signUp();
    const foreign = await other.form('/account/verification', { return_to: 'https://evil.example/' });
    expect(await foreign.text()).toContain('<a id="return" href="/account">');

    expect((await new Agent(t).form('/account/verification', {})).status).toBe(401);
    const noCsrf = await other.fetch('/account/verification', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: '' });
    expect(noCsrf.status).toBe(403);
  });

  it('a mail server that refuses the message: a clear 503 page, and no link left behind', async () => {
    const { agent, name, email } = await signUp();
    await smtp.next(email);
    smtp.refuse = 'Mailbox temporarily unavailable';
    try {
      const res = await agent.form('/account/verification', {});
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await res.text()).toContain('The email could not be sent right now; please try again in a few minutes');
    } finally {
      smtp.refuse = undefined;
    }
    const user = (await t.store.users.getUserByName(name))!;
    const rows = await t.store.knex('email_links').where({ user_id: user.id });
    expect(rows).toHaveLength(1);
  });
});

describe('the email scope needs a verified address', () => {
  const CALLBACK = 'https://client.example/callback';

  async function consent(agent: Agent, clientId: string, scope: string): Promise<string> {
    const res = await agent.fetch(`/oauth?${new URLSearchParams({ client_id: clientId, redirect_uri: CALLBACK, scope, state: 's1' })}`);
    expect(res.status).toBe(200);
    return res.text();
  }

  it('the consent page says so, offers to resend, disables Authorize; posting Authorize anyway is refused; Cancel works', async () => {
    const owner = await makeUser(t);
    const client = await makeClient(t, owner.id, [CALLBACK]);
    const { agent, name } = await signUp();
    const page = await consent(agent, client.clientId, 'userinfo email');
    expect(page).toContain('This app asks for your email address, and yours is not verified yet, so you cannot authorize it now.');
    expect(page).toContain('id="authorize" disabled>Authorize</button>');
    expect(page).toContain(`<input type="hidden" name="return_to" value="/oauth?client_id=${client.clientId}&amp;redirect_uri=`);
    // Without email the request is unaffected.
    expect(await consent(agent, client.clientId, 'userinfo')).not.toContain('email-unverified');

    const fields = { client_id: client.clientId, redirect_uri: CALLBACK, scope: 'userinfo email', state: 's1' };
    const refused = await agent.form('/oauth', { ...fields, decision: 'authorize' });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('location')).toBeNull();
    expect(await refused.text()).toContain('The email scope needs a verified email address, and this user has not verified theirs yet');
    const user = (await t.store.users.getUserByName(name))!;
    expect(await t.store.knex('auth_codes').where({ user_id: user.id })).toHaveLength(0);

    const cancel = await agent.form('/oauth', { ...fields, decision: 'cancel' });
    expect(cancel.status).toBe(302);
    expect(new URL(cancel.headers.get('location')!).searchParams.get('error')).toBe('access_denied');

    const ok = await agent.form('/oauth', { ...fields, scope: 'userinfo', decision: 'authorize' });
    expect(new URL(ok.headers.get('location')!).searchParams.get('code')).toMatch(/^[\w-]{43}$/);
  });

  it('issueCode refuses email for an unverified address (every path: consent, CLI, tests) and allows it once verified; whois unchanged', async () => {
    const user = await makeUser(t, undefined, { verified: false });
    const client = await makeClient(t, user.id);
    const deps = { store: t.store, now: t.clock.now };
    const req = { userId: user.id, clientId: client.clientId, scope: 'userinfo email', redirectUri: null, codeChallenge: null };
    await expect(issueCode(deps, req)).rejects.toMatchObject({ kind: 'forbidden' });
    await expect(issueCode(deps, { ...req, scope: 'userinfo' })).resolves.toMatchObject({ scopes: ['userinfo'] });

    const verified = await makeUser(t);
    const { code } = await issueCode(deps, { ...req, userId: verified.id });
    const res = await tokenRequest(t, { grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: client.clientSecret });
    const { access_token } = (await res.json()) as { access_token: string };
    const whois = await fetch(`${t.baseUrl}/api/oauth/whois`, { headers: { Authorization: `Bearer ${access_token}` } });
    expect(await whois.json()).toEqual({ id: verified.id, name: verified.name, email: verified.email });
  });
});

describe('users that need no proof', () => {
  it('the demo users are verified', async () => {
    const s = await startServer();
    try {
      const demo = await seedDemo(s.store, s.config, s.clock.now);
      expect((await s.store.users.getUser(demo.userId))!.emailVerifiedAt).toBe(s.clock.now());
      expect((await s.store.users.getUser(demo.otherUserId))!.emailVerifiedAt).toBe(s.clock.now());
    } finally {
      await s.close();
    }
  });
});

describe('sign-up while the mail server refuses', () => {
  it('still creates the account; the account page says not verified and offers the link again; no link is left', async () => {
    smtp.refuse = 'Service not available';
    let created: { agent: Agent; name: string };
    try {
      created = await signUp();
      // The mail goes after the answer: the refusal must meet it.
      await t.app.deps.mailer.idle();
    } finally {
      smtp.refuse = undefined;
    }
    const page = await (await created.agent.fetch('/account')).text();
    expect(page).toContain('<strong id="email-state" data-verified="false">not verified</strong>');
    expect(page).toContain('id="resend-verification"');
    const user = (await t.store.users.getUserByName(created.name))!;
    expect(await t.store.knex('email_links').where({ user_id: user.id })).toHaveLength(0);
  });
});

describe('the audit trail', () => {
  it('records email_verified, password_reset_requested, password_reset, email_change_requested and email_changed, never a token', async () => {
    const events: { event: AuditEvent; fields: AuditFields }[] = [];
    const original = t.app.deps.audit;
    t.app.deps.audit = (event, fields) => {
      events.push({ event, fields });
      original(event, fields);
    };
    try {
      const { agent, name, email } = await signUp();
      const verifyLink = linkOf(await smtp.next(email));
      await agent.fetch(pathOf(verifyLink));
      const user = (await t.store.users.getUserByName(name))!;

      await new Agent(t).form('/forgot-password', { login: name });
      await t.app.deps.mailer.idle();
      const resetLink = linkOf(smtp.to(email).find((m) => m.mail.subject === 'Reset your password')!);
      const token = new URL(resetLink).searchParams.get('token')!;
      expect((await new Agent(t).form('/reset-password', { token, password: 'the next password' })).status).toBe(200);

      await agent.signIn({ name }, 'the next password');
      const target = `${name}@elsewhere.example`;
      expect((await agent.form('/account/email', { email: target, password: 'the next password' })).status).toBe(200);
      await agent.fetch(pathOf(linkOf(await smtp.next(target))));

      const ours = events.filter((e) => e.event !== 'sign_in' && e.event !== 'sign_up');
      expect(ours.map((e) => e.event)).toEqual(['email_verified', 'password_reset_requested', 'password_reset', 'email_change_requested', 'email_changed']);
      expect(ours[0]!.fields).toEqual({ userId: user.id });
      expect(ours[2]!.fields).toEqual({ userId: user.id, endedSessions: 1 });
      expect(ours[4]!.fields).toEqual({ userId: user.id, oldEmail: email, newEmail: target });
      const text = JSON.stringify(events);
      for (const secret of [new URL(verifyLink).searchParams.get('token')!, token, 'the next password']) expect(text).not.toContain(secret);
    } finally {
      t.app.deps.audit = original;
    }
  });
});
