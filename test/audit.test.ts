/**
 * The audit trail: each security event is one log line with `event` (and `audit: true`), and no
 * line carries a secret. The account page lists the user's own recent sign-ins.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEPT_SIGN_INS } from '../src/accounts/sign-ins.js';
import { createAudit } from '../src/audit.js';
import { Agent, makeUser, startServer, tokenRequest, type TestServer, TEST_PASSWORD } from './helpers.js';

const lines: string[] = [];
let t: TestServer;
beforeAll(async () => {
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
  t = await startServer({}, { logger, limits: { signInIp: { points: 1000, seconds: 600 } } });
});
afterAll(async () => t?.close());

type Line = Record<string, unknown>;
const parsed = (): Line[] => lines.map((l) => JSON.parse(l) as Line);
const events = (name: string): Line[] => parsed().filter((l) => l.event === name);

describe('audit trail', () => {
  it('writes one line with `event` per security event, and never a secret', async () => {
    const secrets: string[] = [];
    const agent = new Agent(t);
    const password = 'audited-password-1';
    secrets.push(password);
    const name = `audited_${process.pid}`;
    expect((await agent.form('/signup', { name, email: `${name}@example.com`, password })).status).toBe(200);
    const userId = (await t.store.users.getUserByName(name))!.id;
    // Signing up signs nobody in; the first sign-in starts the history.
    expect(await t.store.signIns.listSignIns(userId, 10)).toEqual([]);
    await agent.signIn({ name }, password);
    expect(await t.store.signIns.listSignIns(userId, 10)).toEqual([{ at: t.clock.now(), ip: '127.0.0.1', userAgent: expect.any(String), upstream: null }]);
    expect((await agent.form('/signout', {})).status).toBe(303);
    const wrong = 'not-the-password-9';
    secrets.push(wrong);
    expect((await agent.form('/signin', { name, password: wrong })).status).toBe(401);
    expect((await agent.form('/signin', { name: 'nobody-at-all', password: wrong })).status).toBe(401);
    const signedIn = await agent.fetch('/signin', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'User-Agent': 'AuditBrowser/1.0' },
      body: new URLSearchParams({ _csrf: await agent.csrf(), name, password }).toString(),
    });
    expect(signedIn.status).toBe(303);
    secrets.push(...agent.cookies.values(), await agent.csrf());

    const created = (await (await agent.json('POST', '/api/apps', { name: 'Audited', redirect_uris: ['https://a.example/cb'] })).json()) as {
      client_id: string;
      client_secret: string;
    };
    const rotated = (await (await agent.json('POST', `/api/apps/${created.client_id}/secret`)).json()) as { client_secret: string };
    secrets.push(created.client_secret, rotated.client_secret);
    const consent = await agent.form('/oauth', { client_id: created.client_id, redirect_uri: 'https://a.example/cb', scope: 'userinfo', decision: 'authorize' });
    expect(consent.status).toBe(302);
    const code = new URL(consent.headers.get('location')!).searchParams.get('code')!;
    secrets.push(code);
    const exchange = { grant_type: 'authorization_code', code, client_id: created.client_id, client_secret: rotated.client_secret };
    const first = await tokenRequest(t, exchange);
    secrets.push(((await first.json()) as { access_token: string }).access_token);
    expect((await tokenRequest(t, exchange)).status).toBe(400);
    const game = await agent.json('POST', '/api/games', { title: 'Audited game', url: 'https://game.example/' });
    expect(game.status).toBe(201);
    const gameId = ((await game.json()) as { id: number }).id;
    expect((await agent.json('PATCH', `/api/games/${gameId}`, { title: 'Audited game 2' })).status).toBe(200);
    expect((await agent.json('DELETE', `/api/games/${gameId}`)).status).toBe(204);
    expect((await agent.json('PATCH', `/api/apps/${created.client_id}`, { name: 'Audited 2' })).status).toBe(200);
    expect((await agent.json('DELETE', `/api/apps/${created.client_id}`)).status).toBe(204);

    const ip = '127.0.0.1';
    const expected: [string, Line][] = [
      ['sign_up', { userId, ip }],
      ['sign_out', { userId, ip }],
      ['sign_in_failed', { userId, ip, reason: 'wrong_password' }],
      ['app_created', { userId, clientId: created.client_id }],
      ['app_secret_rotated', { userId, clientId: created.client_id }],
      ['consent_given', { userId, clientId: created.client_id, scopes: ['userinfo'] }],
      ['code_replay_detected', { userId, clientId: created.client_id, revokedTokens: 1 }],
      ['game_created', { userId, gameId }],
      ['game_updated', { userId, gameId, fields: ['title'] }],
      ['game_deleted', { userId, gameId }],
      ['app_updated', { userId, clientId: created.client_id, fields: ['name'] }],
      ['app_deleted', { userId, clientId: created.client_id }],
    ];
    for (const [event, fields] of expected) {
      const found = events(event).filter((l) => l.reason !== 'unknown_account');
      expect(found, event).toHaveLength(1);
      expect(found[0], event).toMatchObject({ ...fields, event, audit: true, level: 30, msg: event });
    }
    // The first sign-in right after signing up, then the one with its own browser name.
    expect(events('sign_in')).toEqual([
      expect.objectContaining({ userId, ip, event: 'sign_in', audit: true }),
      expect.objectContaining({ userId, ip, userAgent: 'AuditBrowser/1.0', event: 'sign_in', audit: true }),
    ]);
    expect(events('sign_in_failed').filter((l) => l.reason === 'unknown_account')).toEqual([
      expect.objectContaining({ ip, reason: 'unknown_account', event: 'sign_in_failed' }),
    ]);
    // Not the login that was typed either: people type their password there by mistake.
    expect(lines.join('\n')).not.toContain('nobody-at-all');

    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(8);
      expect(lines.filter((l) => l.includes(secret)), 'a log line carries a secret').toEqual([]);
    }
  });

  it('shows the user their own recent sign-ins on the account page, newest first, escaped, and keeps only the latest', async () => {
    const user = await makeUser(t);
    const other = await makeUser(t);
    await new Agent(t).signIn(other);
    const agent = new Agent(t);
    for (let i = 0; i < KEPT_SIGN_INS + 2; i++) {
      t.clock.advance(60_000);
      const res = await agent.fetch('/signin', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'User-Agent': `Browser/${i} <b>` },
        body: new URLSearchParams({ _csrf: await agent.csrf(), name: user.name, password: TEST_PASSWORD }).toString(),
      });
      expect(res.status).toBe(303);
    }
    const page = await (await agent.fetch('/account')).text();
    const section = page.slice(page.indexOf('<section id="sign-ins"'));
    expect(section).toContain('<h2>Recent sign-ins</h2>');
    const agents = [...section.matchAll(/<td data-user-agent="(Browser\/\d+ &lt;b&gt;)">\1<\/td>/g)].map((m) => m[1]);
    expect(agents).toEqual(Array.from({ length: 10 }, (_, i) => `Browser/${KEPT_SIGN_INS + 1 - i} &lt;b&gt;`));
    expect(section).toContain('<td>127.0.0.1</td>');
    expect(section).toContain(`${new Date(t.clock.now()).toISOString().slice(0, 16).replace('T', ' ')} UTC`);
    expect((await t.store.signIns.listSignIns(user.id, 100)).length).toBe(KEPT_SIGN_INS);
    expect((await t.store.signIns.listSignIns(other.id, 100)).length).toBe(1);
  });
});

describe('sign-in records', () => {
  it('go with their user', async () => {
    const user = await makeUser(t);
    await new Agent(t).signIn(user);
    expect(await t.store.signIns.listSignIns(user.id, 10)).toHaveLength(1);
    await t.store.knex('users').where({ id: user.id }).delete();
    expect(await t.store.knex('sign_ins').where({ user_id: user.id })).toEqual([]);
  });
});

describe('listeners of the audit trail', () => {
  it('hear each event after its line, in order; one that throws is logged and skipped, and never fails the event', () => {
    const written: Line[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void written.push(JSON.parse(line) as Line) });
    const heard: string[] = [];
    const audit = createAudit(logger, [
      (event) => heard.push(`first ${event} after ${written.length} lines`),
      () => {
        throw new Error('a listener that fails');
      },
      (event) => heard.push(`last ${event}`),
    ]);
    expect(() => audit('email_verified', { userId: 7 })).not.toThrow();
    expect(heard).toEqual(['first email_verified after 1 lines', 'last email_verified']);
    expect(written.map((l) => [l.msg, l.event])).toEqual([
      ['email_verified', 'email_verified'],
      ['an audit listener failed', 'email_verified'],
    ]);
  });
});
