/** The account-control security events reach the audit trail, with ids and never a secret. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEvent, AuditFields } from '../../src/audit.js';
import { makeClient, makeUser, signedInAgent, startServer, TEST_PASSWORD, type TestServer } from '../helpers.js';

let t: TestServer;
let events: { event: AuditEvent; fields: AuditFields }[] = [];
beforeAll(async () => {
  t = await startServer();
  t.app.deps.audit = (event, fields) => events.push({ event, fields });
});
beforeEach(() => {
  events = [];
});
/** The events of account control; the sign-ins the tests make are test/audit.test.ts's subject. */
const accountEvents = () => events.filter((e) => e.event !== 'sign_in');
afterAll(async () => t?.close());

const CALLBACK = 'https://client.example/callback';

describe('audit events of account control', () => {
  it('consent_given (traditional and game flow) and grant_revoked', async () => {
    const owner = await makeUser(t);
    const client = await makeClient(t, owner.id, [CALLBACK]);
    const game = await t.store.games.createGame({ authorId: owner.id, title: 'G', url: 'https://game.example/', createdAt: t.clock.now() });
    const { agent, user } = await signedInAgent(t);
    await agent.form('/oauth', { decision: 'authorize', client_id: client.clientId, redirect_uri: CALLBACK, scope: 'userinfo email' });
    await agent.json('DELETE', `/api/account/grants/${client.clientId}`);
    await agent.json('POST', `/api/games/${game.id}/codes`, { client_id: client.clientId, scopes: ['userinfo'] });
    // A remembered grant is no new consent.
    await agent.json('POST', `/api/games/${game.id}/codes`, { client_id: client.clientId, scopes: ['userinfo'] });
    expect(accountEvents()).toEqual([
      { event: 'consent_given', fields: { userId: user.id, clientId: client.clientId, scopes: ['userinfo', 'email'], flow: 'traditional' } },
      { event: 'grant_revoked', fields: { userId: user.id, clientId: client.clientId } },
      { event: 'consent_given', fields: { userId: user.id, clientId: client.clientId, scopes: ['userinfo'], flow: 'game' } },
    ]);
  });

  it('password_changed, sign_out (one and everywhere) and account_deleted, without the password', async () => {
    const { agent, user } = await signedInAgent(t);
    await agent.json('POST', '/api/account/password', { current_password: TEST_PASSWORD, new_password: 'new password 123' });
    const sessions = (await (await agent.fetch('/api/account/sessions')).json()) as { sessions: { id: string }[] };
    await agent.json('DELETE', `/api/account/sessions/${sessions.sessions[0]!.id}`);
    const again = await signedInAgent(t);
    await again.agent.json('POST', '/api/account/signout-everywhere');
    const last = await signedInAgent(t);
    await last.agent.json('POST', '/api/account/deletion', { password: TEST_PASSWORD, confirm: last.user.name });
    expect(accountEvents()).toEqual([
      { event: 'password_changed', fields: { userId: user.id, endedSessions: 0 } },
      { event: 'sign_out', fields: { userId: user.id, scope: 'one' } },
      { event: 'sign_out', fields: { userId: again.user.id, scope: 'everywhere', endedSessions: 1 } },
      { event: 'account_deleted', fields: { userId: last.user.id, name: last.user.name, by: 'user' } },
    ]);
    expect(JSON.stringify(events)).not.toContain(TEST_PASSWORD);
  });
});
