/**
 * What a suspended person is told (docs/moderation.md#suspension): the browser whose session the
 * suspension signed out says why on its next page, and nobody else's does; a mail when the account
 * is suspended and when the suspension is lifted (src/accounts/notices.ts).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { UserRecord } from '../../src/domain/users.js';
import { Agent, makeUser, signedInAgent, startServer, type TestServer } from '../helpers.js';
import { MailServer } from '../mail-server.js';

let t: TestServer;
let smtp: MailServer;
let mod: Agent;
beforeAll(async () => {
  smtp = await new MailServer().start();
  t = await startServer({ SMTP_URL: smtp.url, PUBLIC_URL: 'https://idp.example' }, { limits: { signInIp: { points: 1000, seconds: 600 } } });
  const moderator = await makeUser(t);
  await t.store.users.updateUser(moderator.id, { modLevel: 2 });
  mod = new Agent(t);
  await mod.signIn(moderator);
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});
beforeEach(() => smtp.clear());

const NOTICE = /<p class="notice" id="account-notice" role="status">([^<]*)<\/p>/;

async function suspend(user: UserRecord, body: { reason: string; until?: string }): Promise<void> {
  expect((await mod.json('POST', `/api/moderation/users/${user.id}/suspension`, body)).status).toBe(200);
}

describe('a suspended person is told', () => {
  it("the browser it signed out says why on its next pages, the sign-in page included; another browser is told nothing before the right password", async () => {
    const { agent, user } = await signedInAgent(t);
    const until = t.clock.now() + 24 * 3600 * 1000;
    await suspend(user, { reason: 'Spam in every bio', until: new Date(until).toISOString() });
    const said = `You were signed out of ${user.name}. This account is suspended until ${new Date(until).toISOString().slice(0, 16).replace('T', ' ')} UTC: Spam in every bio`;

    // The account page sends the browser to sign in, and the sign-in page says why.
    const account = await agent.fetch('/account');
    expect([account.status, account.headers.get('location')]).toEqual([303, '/signin?return_to=%2Faccount']);
    const signIn = await (await agent.fetch('/signin?return_to=%2Faccount')).text();
    expect(NOTICE.exec(signIn)?.[1]).toBe(said);
    expect(signIn).not.toContain('class="who"');
    expect(NOTICE.exec(await (await agent.fetch('/')).text())?.[1]).toBe(said);
    // The API stays as the contract says: signed out.
    expect([(await agent.fetch('/api/account')).status]).toEqual([401]);

    // Someone else's browser: nothing, not even with the name typed, until the right password.
    const stranger = new Agent(t);
    expect(await (await stranger.fetch('/signin')).text()).not.toContain('account-notice');
    const wrong = await stranger.form('/signin', { name: user.name, password: 'not the password' });
    expect(await wrong.text()).not.toContain('Spam in every bio');

    // Lifted: the old browser says nothing any more, and signs in again.
    expect((await mod.json('DELETE', `/api/moderation/users/${user.id}/suspension`)).status).toBe(200);
    expect(await (await agent.fetch('/signin')).text()).not.toContain('account-notice');
    await agent.signIn(user);
    expect((await agent.fetch('/account')).status).toBe(200);
  });

  it('mails the person when the account is suspended (reason and end) and when the suspension is lifted', async () => {
    const user = await makeUser(t);
    await suspend(user, { reason: 'Cheating' });
    expect((await mod.json('DELETE', `/api/moderation/users/${user.id}/suspension`)).status).toBe(200);
    await t.app.deps.mailer.idle();
    const mails = smtp.to(user.email);
    expect(mails.map((m) => m.mail.subject)).toEqual(['Your account is suspended', 'Your account is no longer suspended']);
    expect(mails[0]!.mail.text).toBe(
      `Hello ${user.name}, your account was suspended until a moderator lifts it. The reason given: Cheating\n\n` +
        'While it lasts you cannot sign in, and apps cannot act for you; your public profile stays as it is. ' +
        'If you think this is a mistake, contact the operator of this service.\n',
    );
    expect(mails[1]!.mail.text).toBe(
      `Hello ${user.name}, the suspension of your account was lifted: you can sign in again at https://idp.example/signin.\n\n` +
        'Apps you had authorized ask you to sign in again: the suspension signed you out of them.\n',
    );
  });

  it('does not mail an unverified address', async () => {
    const user = await makeUser(t, undefined, { verified: false });
    await suspend(user, { reason: 'Spam' });
    await t.app.deps.mailer.idle();
    expect(smtp.to(user.email)).toEqual([]);
  });
});
