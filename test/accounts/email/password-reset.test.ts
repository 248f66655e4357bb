/**
 * Password reset by mail: postForgotPassword answers the same whatever was asked, the reset link
 * (getResetPassword, postResetPassword) is single-use and 1 hour, and using it ends every session
 * and voids the user's other links.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hashSecret } from '../../../src/security/secrets.js';
import { Agent, makeUser, signedInAgent, startServer, TEST_PASSWORD, type TestServer } from '../../helpers.js';
import { linkOf, MailServer } from '../../mail-server.js';

let t: TestServer;
let smtp: MailServer;

beforeAll(async () => {
  smtp = await new MailServer().start();
  t = await startServer(
    { SMTP_URL: smtp.url, PUBLIC_URL: 'https://idp.example' },
    {
      limits: {
        forgotPasswordIp: { points: 1000, seconds: 3600 },
        forgotPasswordLogin: { points: 3, seconds: 3600 },
        forgotPasswordAccount: { points: 2, seconds: 3600 },
        signInIp: { points: 1000, seconds: 3600 },
      },
    },
  );
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});
beforeEach(() => smtp.clear());

async function forgot(login: string, agent = new Agent(t)): Promise<{ status: number; body: string }> {
  const res = await agent.form('/forgot-password', { login });
  const body = await res.text();
  await t.app.deps.mailer.idle();
  return { status: res.status, body };
}

/** The answer without the parts that differ per session (CSRF tokens). */
function stable(body: string): string {
  return body.replace(/content="[^"]*"/g, '').replace(/name="_csrf" value="[^"]*"/g, '');
}

async function resetToken(email: string): Promise<string> {
  const d = await smtp.next(email);
  expect(d.mail.subject).toBe('Reset your password');
  const link = new URL(linkOf(d));
  expect(link.origin + link.pathname).toBe('https://idp.example/reset-password');
  return link.searchParams.get('token')!;
}

describe('postForgotPassword', () => {
  it('answers exactly the same page for a known name, a known email and an unknown one; mails only the account', async () => {
    const user = await makeUser(t);
    const known = await forgot(user.name);
    const byEmail = await forgot(user.email.toUpperCase());
    const unknown = await forgot('nobody_here');
    const unknownEmail = await forgot('nobody@nowhere.example');
    for (const answer of [known, byEmail, unknown, unknownEmail]) {
      expect(answer.status).toBe(200);
      expect(stable(answer.body)).toBe(stable(known.body));
    }
    expect(known.body).toContain('If an account matches what you entered, a link to choose a new password is on its way');
    expect(smtp.messages.map((m) => m.to)).toEqual([[user.email], [user.email]]);
    const d = smtp.messages[0]!;
    expect(d.mail.html).toContain(`href="${linkOf(d)}"`);
    const token = new URL(linkOf(d)).searchParams.get('token')!;
    const stored = await t.store.emailLinks.getEmailLink(hashSecret(token));
    expect(stored).toMatchObject({ purpose: 'reset', email: null, userId: user.id, usedAt: null });
    expect(stored!.expiresAt - stored!.createdAt).toBe(3600 * 1000);
  });

  it('does the lookup and the mail after answering, so a known and an unknown name take the same time', async () => {
    const user = await makeUser(t);
    // Median of several runs each: the known one would otherwise include an SMTP round trip.
    const time = async (login: string) => {
      const runs: number[] = [];
      for (let i = 0; i < 3; i++) {
        const agent = new Agent(t);
        const csrf = await agent.csrf();
        const start = performance.now();
        const res = await agent.fetch('/forgot-password', {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ _csrf: csrf, login: `${login}` }).toString(),
        });
        await res.text();
        runs.push(performance.now() - start);
        await t.app.deps.mailer.idle();
        await t.app.deps.limits.forgotPasswordLogin.reset(`login:${login.toLowerCase()}`);
        await t.app.deps.limits.forgotPasswordAccount.reset(`user:${user.id}`);
      }
      return runs.sort((a, b) => a - b)[1]!;
    };
    smtp.clear();
    // The mail server takes 150 ms per message: were the send awaited, the known name would show it.
    const slow = smtp.delayMs;
    smtp.delayMs = 150;
    try {
      const known = await time(user.name);
      const unknown = await time('nobody_at_all');
      expect(Math.abs(known - unknown)).toBeLessThan(100);
    } finally {
      smtp.delayMs = slow;
    }
    expect(smtp.to(user.email)).toHaveLength(3);
  });

  it('is rate-limited per name or address asked (429, known or not alike), and silently per account', async () => {
    const user = await makeUser(t);
    for (const login of [user.name, 'nobody_limited']) {
      for (let i = 0; i < 3; i++) expect((await forgot(login)).status).toBe(200);
      const limited = await forgot(login);
      expect(limited.status).toBe(429);
      expect(limited.body).toContain('Too many attempts, retry in');
    }
    // The account got 2 mails (its own limit), not 3, though each answer was the same.
    expect(smtp.to(user.email)).toHaveLength(2);
    expect((await forgot(user.email)).status).toBe(200);
    expect(smtp.to(user.email)).toHaveLength(2);
  });

  it('is rate-limited per client address', async () => {
    const s = await startServer({ SMTP_URL: smtp.url }, { limits: { forgotPasswordIp: { points: 2, seconds: 3600 } } });
    try {
      const send = (login: string) => new Agent(s).form('/forgot-password', { login });
      expect((await send('a_one')).status).toBe(200);
      expect((await send('a_two')).status).toBe(200);
      const limited = await send('a_three');
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
      await s.app.deps.mailer.idle();
    } finally {
      await s.close();
    }
  });

  it('an empty name shows the form again with the reason; no CSRF token is a 403', async () => {
    const empty = await forgot('   ');
    expect(empty.status).toBe(400);
    expect(empty.body).toContain('<p class="error" id="error-message">Enter your name or email address</p>');
    const res = await new Agent(t).fetch('/forgot-password', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'login=x' });
    expect(res.status).toBe(403);
  });

  it('a mail server that cannot be reached: the same answer, and the unsent link removed', async () => {
    const dead = new MailServer();
    await dead.start();
    const url = dead.url;
    await dead.close();
    const s = await startServer({ SMTP_URL: url, SMTP_TIMEOUT_SECONDS: '1' });
    try {
      const user = await makeUser(s);
      const res = await new Agent(s).form('/forgot-password', { login: user.name });
      expect(res.status).toBe(200);
      await s.app.deps.mailer.idle();
      expect(await s.store.knex('email_links').where({ user_id: user.id })).toHaveLength(0);
    } finally {
      await s.close();
    }
  });
});

describe('getResetPassword and postResetPassword', () => {
  it('the link opens the form; a new password ends every session, voids the other links, and the link works once', async () => {
    const { agent: phone, user } = await signedInAgent(t);
    const laptop = new Agent(t);
    await laptop.signIn(user);
    expect((await phone.fetch('/api/account')).status).toBe(200);

    await forgot(user.name);
    const older = await resetToken(user.email);
    smtp.clear();
    t.clock.advance(1000);
    await forgot(user.email);
    const token = await resetToken(user.email);

    const browser = new Agent(t);
    const page = await browser.fetch(`/reset-password?token=${token}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(`<strong id="reset-name">${user.name}</strong>`);
    expect(html).toContain(`<input type="hidden" name="token" value="${token}">`);
    // Opening the page does not use the link up.
    expect((await t.store.emailLinks.getEmailLink(hashSecret(token)))!.usedAt).toBeNull();

    const short = await browser.form('/reset-password', { token, password: 'short' });
    expect(short.status).toBe(400);
    expect(await short.text()).toContain('<p class="error" id="error-message">Password must be 8 to 256 characters</p>');

    const done = await browser.form('/reset-password', { token, password: 'a brand new password' });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('Your new password is set, and every session of your account has been signed out.');

    expect((await phone.fetch('/api/account')).status).toBe(401);
    expect((await laptop.fetch('/api/account')).status).toBe(401);
    expect((await browser.fetch('/api/session').then((r) => r.json())) as { signed_in: boolean }).toMatchObject({ signed_in: false });
    expect(await t.store.knex('sessions').where({ user_id: user.id })).toHaveLength(0);
    expect((await new Agent(t).form('/signin', { name: user.name, password: TEST_PASSWORD })).status).toBe(401);
    await new Agent(t).signIn(user, 'a brand new password');

    for (const [used, why] of <[string, string][]>[
      [token, 'This link has already been used. Ask for a new one if you still need it.'],
      [older, 'A newer link replaced this one, and it has been used. Ask for a new one if you still need it.'],
    ]) {
      const again = await new Agent(t).fetch(`/reset-password?token=${used}`);
      expect(again.status).toBe(400);
      const page = await again.text();
      expect(page).toContain(`<h1>This link cannot be used</h1>\n<p class="error" id="error-message">${why}</p>\n<p><a class="button" id="forward" href="/forgot-password">Ask for a new link</a></p>`);
      const post = await new Agent(t).form('/reset-password', { token: used, password: 'yet another password' });
      expect(post.status).toBe(400);
    }
    await new Agent(t).signIn(user, 'a brand new password');
  });

  it('resetting in a browser signed in as the user signs that browser out too', async () => {
    const { agent, user } = await signedInAgent(t);
    await forgot(user.name, agent);
    const token = await resetToken(user.email);
    expect((await agent.fetch(`/reset-password?token=${token}`)).status).toBe(200);
    const done = await agent.form('/reset-password', { token, password: 'reset while signed in' });
    expect(done.status).toBe(200);
    expect(await done.text()).not.toContain('Signed in as');
    expect((await agent.fetch('/api/account')).status).toBe(401);
    expect(await t.store.knex('sessions').where({ user_id: user.id })).toHaveLength(0);
  });

  it('a reset voids a pending change of address and clears the failed sign-ins that locked the account', async () => {
    const s2 = await startServer({ SMTP_URL: smtp.url, PUBLIC_URL: 'https://idp.example' }, { limits: { signInAccount: { points: 2, seconds: 3600 } } });
    try {
      const user = await makeUser(s2);
      const agent = new Agent(s2);
      await agent.signIn(user);
      expect((await agent.form('/account/email', { email: 'elsewhere@new.example', password: TEST_PASSWORD })).status).toBe(200);
      const change = new URL(linkOf(await smtp.next('elsewhere@new.example')));
      for (let i = 0; i < 2; i++) expect((await new Agent(s2).form('/signin', { name: user.name, password: 'wrong guess' })).status).toBe(401);
      expect((await new Agent(s2).form('/signin', { name: user.name, password: TEST_PASSWORD })).status).toBe(429);

      smtp.clear();
      expect((await new Agent(s2).form('/forgot-password', { login: user.name })).status).toBe(200);
      await s2.app.deps.mailer.idle();
      const token = await resetToken(user.email);
      expect((await new Agent(s2).form('/reset-password', { token, password: 'after the reset' })).status).toBe(200);

      const voided = await new Agent(s2).fetch(change.pathname + change.search);
      expect(voided.status).toBe(400);
      expect((await s2.store.users.getUser(user.id))!.email).toBe(user.email);
      await new Agent(s2).signIn(user, 'after the reset');
    } finally {
      await s2.close();
    }
  });

  it('an expired link (1 h on the injected clock) and a tampered one: a clear page, the password unchanged', async () => {
    const user = await makeUser(t);
    await forgot(user.name);
    const token = await resetToken(user.email);
    const flipped = (token[5] === 'A' ? 'B' : 'A');
    const tampered = token.slice(0, 5) + flipped + token.slice(6);
    for (const path of [`/reset-password?token=${tampered}`, '/reset-password?token=abc']) {
      const res = await new Agent(t).fetch(path);
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('This link is not valid: it may be incomplete or changed. Ask for a new one.');
    }
    expect((await new Agent(t).form('/reset-password', { token: tampered, password: 'a brand new password' })).status).toBe(400);

    t.clock.advance(3600 * 1000);
    try {
      const res = await new Agent(t).fetch(`/reset-password?token=${token}`);
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('This link has expired. Ask for a new one.');
      const post = await new Agent(t).form('/reset-password', { token, password: 'a brand new password' });
      expect(post.status).toBe(400);
    } finally {
      t.clock.advance(-3600 * 1000);
    }
    await new Agent(t).signIn(user);
  });
});
