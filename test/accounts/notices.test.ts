/**
 * Notices of sign-in changes (src/accounts/notices.ts) through the in-process SMTP server: one
 * short mail per change, after it is made, with no secret in it; a mail server that refuses does
 * not fail the change; an unverified address is not mailed.
 */
import { TOTP, URI } from 'otpauth';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addUpstream } from '../../src/upstreams/upstreams.js';
import { SoftAuthenticator } from '../fixtures/soft-authenticator.js';
import { Agent, makeUser, signedInAgent, startServer, TEST_PASSWORD, type TestServer } from '../helpers.js';
import { MailServer } from '../mail-server.js';

let t: TestServer;
let smtp: MailServer;
beforeAll(async () => {
  smtp = await new MailServer().start();
  t = await startServer({ SMTP_URL: smtp.url, PUBLIC_URL: 'https://idp.example' }, { limits: { signInIp: { points: 1000, seconds: 600 } } });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});
beforeEach(() => smtp.clear());

/** The subjects of the notices the address got, once every background mail is out. */
async function subjects(to: string): Promise<string[]> {
  await t.app.deps.mailer.idle();
  return smtp.to(to).map((m) => m.mail.subject ?? '');
}

describe('notices of sign-in changes', () => {
  it('tells the owner of each change, in short mails without a secret', async () => {
    const { agent, user } = await signedInAgent(t);
    const secrets: string[] = [TEST_PASSWORD, 'a new password of mine'];
    expect((await agent.json('POST', '/api/account/password', { current_password: TEST_PASSWORD, new_password: secrets[1] })).status).toBe(204);

    const key = new SoftAuthenticator({ rpId: 'idp.example', origin: 'https://idp.example' });
    const options = (await (await agent.json('POST', '/api/account/passkeys/options', { password: secrets[1] })).json()) as { challenge: string; user: { id: string } };
    const added = (await (await agent.json('POST', '/api/account/passkeys', { credential: key.register(options) })).json()) as { id: number };
    expect((await agent.json('DELETE', `/api/account/passkeys/${added.id}`, { password: secrets[1] })).status).toBe(204);

    const { uri } = (await (await agent.json('POST', '/api/account/totp', { password: secrets[1] })).json()) as { uri: string };
    const totp = URI.parse(uri) as TOTP;
    secrets.push(totp.secret.base32);
    const on = (await (await agent.json('POST', '/api/account/totp/confirm', { code: totp.generate({ timestamp: t.clock.now() }) })).json()) as { recovery_codes: string[] };
    const fresh = (await (await agent.json('POST', '/api/account/recovery-codes', { password: secrets[1] })).json()) as { recovery_codes: string[] };
    secrets.push(...on.recovery_codes, ...fresh.recovery_codes);
    const other = new Agent(t);
    await other.form('/signin', { name: user.name, password: secrets[1]! });
    expect((await other.form('/signin/otp', { otp: fresh.recovery_codes[0]! })).status).toBe(303);
    expect((await agent.json('DELETE', '/api/account/totp', { password: secrets[1] })).status).toBe(204);

    expect(await subjects(user.email)).toEqual([
      'Your password was changed',
      'A passkey was added to your account',
      'A passkey was removed from your account',
      'An authenticator app was switched on',
      'New recovery codes were made',
      'A recovery code was used to sign in',
      'The authenticator app was switched off',
    ]);
    const first = smtp.to(user.email)[0]!;
    expect(first.mail.text).toBe(
      `Hello ${user.name}, the password of your account was changed.\n\n` +
        'If this was you, nothing needs doing. If it was not, reset your password at https://idp.example/forgot-password, ' +
        'check your passkeys and authenticator app at https://idp.example/account, then contact the operator of this service.\n',
    );
    for (const { raw } of smtp.to(user.email)) for (const secret of secrets) expect(raw).not.toContain(secret);
  });

  it('never fails the change when the mail server refuses, and does not mail an unverified address', async () => {
    const { agent, user } = await signedInAgent(t);
    smtp.refuse = '451 try later';
    try {
      expect((await agent.json('POST', '/api/account/password', { current_password: TEST_PASSWORD, new_password: 'a new password of mine' })).status).toBe(204);
      expect(await subjects(user.email)).toEqual([]);
    } finally {
      smtp.refuse = undefined;
    }
    const unverified = await makeUser(t, undefined, { verified: false });
    const other = new Agent(t);
    await other.signIn(unverified);
    expect((await other.json('POST', '/api/account/password', { current_password: TEST_PASSWORD, new_password: 'a new password of mine' })).status).toBe(204);
    expect(await subjects(unverified.email)).toEqual([]);
  });

  it('tells the owner when an account at an upstream is unlinked', async () => {
    const { agent, user } = await signedInAgent(t);
    await addUpstream({ store: t.store, now: t.clock.now, secrets: t.config.sessionSecrets }, { name: 'Acme', source: { issuer: 'https://op.example' }, clientId: 'acme', clientSecret: 'acme-secret' });
    const link = await t.store.upstreamIdentities.linkUpstreamIdentity({ userId: user.id, upstreamSlug: 'acme', subject: 'ada', email: 'ada@acme.example', createdAt: t.clock.now() });
    expect((await agent.json('DELETE', `/api/account/upstream-identities/${link.id}`, { password: TEST_PASSWORD })).status).toBe(204);
    expect(await subjects(user.email)).toEqual(['Another account was unlinked from yours']);
    expect(smtp.to(user.email)[0]!.mail.text).toBe(
      `Hello ${user.name}, an account at another identity provider was unlinked from your account: signing in there no longer signs in to your account here.\n\n` +
        'If this was you, nothing needs doing. If it was not, reset your password at https://idp.example/forgot-password, ' +
        'check your passkeys and authenticator app at https://idp.example/account, then contact the operator of this service.\n',
    );
  });
});
