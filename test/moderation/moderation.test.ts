/** Moderation (docs/moderation.md): reports, moderator actions and their effects, the record, the export. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEvent, AuditFields } from '../../src/audit.js';
import { registerGame } from '../../src/games/games.js';
import { setPicture } from '../../src/pictures/pictures.js';
import type { UserRecord } from '../../src/domain/users.js';
import { Agent, fixturesDir, makeClient, makeCode, makeUser, oauthErrorBody, signedInAgent, startServer, storedPictures, tokenRequest, type TestServer } from '../helpers.js';
import { NOTHING } from '../../src/domain/security-events.js';

let t: TestServer;
/** modLevel 2 (admin), 1 (moderator), and a user. */
let admin: { agent: Agent; user: UserRecord };
let mod: { agent: Agent; user: UserRecord };
let plain: { agent: Agent; user: UserRecord };

const NOT_MODERATOR = { message: 'Only moderators may do this' };
const OUTRANKED = { message: 'You may act only on users whose modLevel is below yours' };
const ref = (u: UserRecord) => ({ id: u.id, name: u.name });

async function answer(res: Response): Promise<[number, unknown]> {
  return [res.status, await res.json()];
}

async function moderator(level: number): Promise<{ agent: Agent; user: UserRecord }> {
  const user = await makeUser(t);
  await t.store.users.updateUser(user.id, { modLevel: level });
  const agent = new Agent(t);
  await agent.signIn(user);
  return { agent, user: (await t.store.users.getUser(user.id))! };
}

beforeAll(async () => {
  t = await startServer({}, { limits: { reportUser: { points: 3, seconds: 3600 } } });
  admin = await moderator(2);
  mod = await moderator(1);
  plain = await signedInAgent(t);
});
afterAll(async () => {
  await t?.close();
});

describe('who may moderate', () => {
  it('answers a non-moderator 403 with the same body whether the user exists or not, for every operation', async () => {
    const target = await makeUser(t);
    const calls: [string, (id: number) => string, unknown?][] = [
      ['GET', (id) => `/api/moderation/users/${id}`],
      ['POST', (id) => `/api/moderation/users/${id}/suspension`, { reason: 'r' }],
      ['DELETE', (id) => `/api/moderation/users/${id}/suspension`],
      ['POST', (id) => `/api/moderation/users/${id}/bio-removal`, { reason: 'r' }],
      ['POST', (id) => `/api/moderation/users/${id}/picture-removal`, { reason: 'r' }],
      ['PUT', (id) => `/api/moderation/users/${id}/mod-level`, { modLevel: 0 }],
      ['POST', (id) => `/api/moderation/reports/${id}/close`, { outcome: 'no_action' }],
      ['POST', (id) => `/api/moderation/games/${id}/removal`, { reason: 'r' }],
    ];
    for (const [method, url, body] of calls) {
      const existing = await answer(await plain.agent.json(method, url(target.id), body));
      const missing = await answer(await plain.agent.json(method, url(999_999), body));
      expect(existing).toEqual([403, NOT_MODERATOR]);
      expect(missing).toEqual(existing);
    }
    for (const url of ['/api/moderation/reports', '/api/moderation/users?q=a', '/api/moderation/actions']) {
      expect(await answer(await plain.agent.fetch(url))).toEqual([403, NOT_MODERATOR]);
    }
    expect((await new Agent(t).fetch('/api/moderation/reports')).status).toBe(401);
  });

  it('lets a moderator act only below their level; a missing user is 404 to moderators', async () => {
    const peer = await moderator(1);
    expect(await answer(await mod.agent.json('POST', `/api/moderation/users/${peer.user.id}/suspension`, { reason: 'r' }))).toEqual([403, OUTRANKED]);
    expect(await answer(await mod.agent.json('POST', `/api/moderation/users/${admin.user.id}/bio-removal`, { reason: 'r' }))).toEqual([403, OUTRANKED]);
    expect(await answer(await mod.agent.json('POST', `/api/moderation/users/${mod.user.id}/suspension`, { reason: 'r' }))).toEqual([403, OUTRANKED]);
    expect(await answer(await mod.agent.json('POST', `/api/moderation/users/999999/suspension`, { reason: 'r' }))).toEqual([404, { message: 'User not found' }]);
    const view = await answer(await mod.agent.fetch(`/api/moderation/users/${peer.user.id}`));
    expect(view[1]).toMatchObject({ can_act: false, user: { id: peer.user.id, modLevel: 1 } });
  });

  it('sets levels: needs modLevel 2, a target below, a new level below the actor; recorded', async () => {
    const target = await makeUser(t);
    expect(await answer(await mod.agent.json('PUT', `/api/moderation/users/${target.id}/mod-level`, { modLevel: 0 }))).toEqual([
      403,
      { message: 'Setting a modLevel needs modLevel 2 or more' },
    ]);
    expect(await answer(await admin.agent.json('PUT', `/api/moderation/users/${target.id}/mod-level`, { modLevel: 2 }))).toEqual([
      403,
      { message: 'You may give a modLevel only below yours' },
    ]);
    const peer = await moderator(2);
    expect(await answer(await admin.agent.json('PUT', `/api/moderation/users/${peer.user.id}/mod-level`, { modLevel: 0 }))).toEqual([403, OUTRANKED]);
    const res = await admin.agent.json('PUT', `/api/moderation/users/${target.id}/mod-level`, { modLevel: 1, reason: 'Trusted' });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as { user: { modLevel: number }; can_act: boolean; actions: unknown[] };
    expect(body.user.modLevel).toBe(1);
    expect(body.can_act).toBe(true);
    expect(body.actions).toEqual([
      { id: expect.any(Number), moderator: ref(admin.user), target: ref(target), action: 'set_mod_level', reason: 'Trusted', mod_level: 1, created_at: t.clock.now() },
    ]);
  });
});

describe('hideBio and removePicture', () => {
  it('empties the bio everywhere, tells the user why until they write a new one; 409 on an empty bio', async () => {
    const { agent, user } = await signedInAgent(t);
    await agent.json('PATCH', '/api/account', { bio: 'rude words' });
    const hidden = await mod.agent.json('POST', `/api/moderation/users/${user.id}/bio-removal`, { reason: 'Insults' });
    expect(hidden.status).toBe(200);
    expect(((await hidden.json()) as { bio_removed: unknown }).bio_removed).toEqual({ reason: 'Insults', removed_at: t.clock.now() });
    const info = (await (await fetch(`${t.baseUrl}/api/users/info?id=${user.id}`)).json()) as { user: { bio: string } };
    expect(info.user.bio).toBe('');
    expect(await (await agent.fetch('/api/account')).json()).toMatchObject({ user: { bio: '' }, bio_removed: { reason: 'Insults', removed_at: t.clock.now() } });
    expect(await answer(await mod.agent.json('POST', `/api/moderation/users/${user.id}/bio-removal`, { reason: 'again' }))).toEqual([409, { message: 'This user has no bio' }]);
    expect((await agent.json('PATCH', '/api/account', { bio: 'kinder words' })).status).toBe(200);
    const account = (await (await agent.fetch('/api/account')).json()) as Record<string, unknown>;
    expect(account.bio_removed).toBeUndefined();
    expect(await answer(await mod.agent.json('POST', `/api/moderation/users/${user.id}/bio-removal`, { reason: '' }))).toEqual([400, expect.objectContaining({ message: expect.any(String) })]);
  });

  it('removes the picture: the old address 404, the plain one the default; 409 without a picture', async () => {
    const user = await makeUser(t);
    const ts = await setPicture({ store: t.store, pictures: t.app.deps.pictures, now: t.clock.now }, user.id, fs.readFileSync(path.join(fixturesDir, 'photo.jpg')));
    expect((await fetch(`${t.baseUrl}/pfp/large/${user.id}-${ts}.webp`)).status).toBe(200);
    const res = await mod.agent.json('POST', `/api/moderation/users/${user.id}/picture-removal`, { reason: 'Gore' });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { user: Record<string, unknown> }).user.pfpTimestamp).toBeUndefined();
    expect((await fetch(`${t.baseUrl}/pfp/large/${user.id}-${ts}.webp`)).status).toBe(404);
    const plainPicture = await fetch(`${t.baseUrl}/pfp/large/${user.id}.webp`);
    expect([plainPicture.status, plainPicture.headers.get('content-type')]).toEqual([200, 'image/webp']);
    expect(await storedPictures(t, user.id)).toEqual([]);
    expect(await answer(await mod.agent.json('POST', `/api/moderation/users/${user.id}/picture-removal`, { reason: 'Gore' }))).toEqual([
      409,
      { message: 'This user has no picture' },
    ]);
  });
});

describe('removeGame', () => {
  const game = async (authorId: number, title = 'Rude Game') =>
    registerGame({ store: t.store, now: t.clock.now }, { authorId, title, url: 'https://rude.example/play' });

  it("deletes a user's game as its author would, recorded on the author with the game and the reason, audited; answers the author", async () => {
    const { agent, user } = await signedInAgent(t);
    const removed = await game(user.id);
    const client = await makeClient(t, user.id);
    const events: { event: AuditEvent; fields: AuditFields }[] = [];
    const audit = t.app.deps.audit;
    t.app.deps.audit = (event, fields) => {
      events.push({ event, fields });
      audit(event, fields);
    };
    let res: Response;
    try {
      res = await mod.agent.json('POST', `/api/moderation/games/${removed.id}/removal`, { reason: 'Slurs on the start screen' });
    } finally {
      t.app.deps.audit = audit;
    }
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as { user: { id: number }; can_act: boolean; actions: unknown[] };
    expect([body.user.id, body.can_act]).toEqual([user.id, true]);
    const action = {
      id: expect.any(Number),
      moderator: ref(mod.user),
      target: ref(user),
      action: 'remove_game',
      reason: 'Slurs on the start screen',
      game: { id: removed.id, title: 'Rude Game' },
      created_at: t.clock.now(),
    };
    expect(body.actions).toEqual([action]);
    expect(events).toEqual([{ event: 'moderation_action', fields: { moderatorId: mod.user.id, userId: user.id, action: 'remove_game', gameId: removed.id } }]);

    // Gone as a deleted game is: the play page, the list, the game flow.
    expect((await fetch(`${t.baseUrl}/play/${removed.id}`)).status).toBe(404);
    const list = (await (await fetch(`${t.baseUrl}/api/games`)).json()) as { games: { id: number }[] };
    expect(list.games.map((g) => g.id)).not.toContain(removed.id);
    expect(await answer(await fetch(`${t.baseUrl}/api/games/${removed.id}/apps/${client.clientId}`))).toEqual([404, { message: 'Game not found' }]);
    expect(await answer(await agent.json('PATCH', `/api/games/${removed.id}`, { title: 'Back' }))).toEqual([404, { message: 'Game not found' }]);
    expect(await answer(await mod.agent.json('POST', `/api/moderation/games/${removed.id}/removal`, { reason: 'again' }))).toEqual([404, { message: 'Game not found' }]);

    // The record, and the author's export (no moderator).
    expect(await answer(await mod.agent.fetch(`/api/moderation/actions?target=${user.id}`))).toEqual([200, { actions: [action] }]);
    const exported = (await (await agent.fetch('/api/account/export')).json()) as Record<string, unknown>;
    expect(exported.moderation_actions).toEqual([{ action: 'remove_game', reason: 'Slurs on the start screen', game: { id: removed.id, title: 'Rude Game' }, created_at: t.clock.now() }]);
  });

  it("needs a moderator above the game's author; 404 for no such game; 400 without a reason; the game stays", async () => {
    const peer = await moderator(1);
    const peersGame = await game(peer.user.id);
    const plainGame = await game(plain.user.id);
    expect(await answer(await mod.agent.json('POST', `/api/moderation/games/${peersGame.id}/removal`, { reason: 'r' }))).toEqual([403, OUTRANKED]);
    expect(await answer(await plain.agent.json('POST', `/api/moderation/games/${plainGame.id}/removal`, { reason: 'r' }))).toEqual([403, NOT_MODERATOR]);
    expect(await answer(await plain.agent.json('POST', '/api/moderation/games/999999/removal', { reason: 'r' }))).toEqual([403, NOT_MODERATOR]);
    expect(await answer(await mod.agent.json('POST', '/api/moderation/games/999999/removal', { reason: 'r' }))).toEqual([404, { message: 'Game not found' }]);
    expect(await answer(await mod.agent.json('POST', `/api/moderation/games/${plainGame.id}/removal`, { reason: '' }))).toEqual([
      400,
      { message: 'Body field reason must NOT have fewer than 1 characters' },
    ]);
    expect(await answer(await mod.agent.json('POST', `/api/moderation/games/${plainGame.id}/removal`, {}))).toEqual([400, { message: 'Body field reason is required' }]);
    expect(await answer(await new Agent(t).json('POST', `/api/moderation/games/${plainGame.id}/removal`, { reason: 'r' }))).toEqual([401, { message: 'Sign in first' }]);
    const forged = await mod.agent.fetch(`/api/moderation/games/${plainGame.id}/removal`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"reason":"r"}' });
    expect(await answer(forged)).toEqual([403, { message: 'Invalid CSRF token' }]);
    expect(await t.store.games.getGame(peersGame.id)).toBeDefined();
    expect(await t.store.games.getGame(plainGame.id)).toBeDefined();
    expect(await t.store.moderation.listModerationActions({ targetId: plain.user.id })).toEqual([]);
    // An admin outranks the moderator.
    expect((await admin.agent.json('POST', `/api/moderation/games/${peersGame.id}/removal`, { reason: 'r' })).status).toBe(200);
    expect(await t.store.games.getGame(peersGame.id)).toBeUndefined();
  });
});

describe('suspendUser and liftSuspension', () => {
  it('ends sessions, revokes tokens, voids codes, refuses sign-in and codes until lifted; the public profile stays', async () => {
    const { agent, user } = await signedInAgent(t);
    const client = await makeClient(t, admin.user.id);
    const code = await makeCode(t, { userId: user.id, clientId: client.clientId, scope: 'openid userinfo' });
    const early = await makeCode(t, { userId: user.id, clientId: client.clientId, scope: 'openid userinfo' });
    const exchanged = await tokenRequest(t, { grant_type: 'authorization_code', code: early, client_id: client.clientId, client_secret: client.clientSecret });
    const { access_token: token } = (await exchanged.json()) as { access_token: string };
    const bearer = { Authorization: `Bearer ${token}` };
    expect((await fetch(`${t.baseUrl}/api/oauth/whois`, { headers: bearer })).status).toBe(200);

    const until = t.clock.now() + 24 * 3600 * 1000;
    const res = await mod.agent.json('POST', `/api/moderation/users/${user.id}/suspension`, { reason: 'Spam', until: new Date(until).toISOString() });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { suspension: unknown }).suspension).toEqual({ reason: 'Spam', since: t.clock.now(), until });

    // The session, the token and the unused code are dead.
    expect(await answer(await agent.fetch('/api/account'))).toEqual([401, { message: 'Sign in first' }]);
    expect((await fetch(`${t.baseUrl}/api/oauth/whois`, { headers: bearer })).status).toBe(401);
    expect((await fetch(`${t.baseUrl}/api/oauth/userinfo`, { headers: bearer })).status).toBe(401);
    const introspected = await fetch(`${t.baseUrl}/api/oauth/introspect`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, client_id: client.clientId, client_secret: client.clientSecret }).toString(),
    });
    expect(await introspected.json()).toEqual({ active: false });
    const redeemed = await tokenRequest(t, { grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: client.clientSecret });
    expect(await answer(redeemed)).toEqual([400, oauthErrorBody('invalid_grant', 'Invalid authorization code')]);

    // Sign-in is refused with the reason and the end; no code is issued.
    const message = `This account is suspended until ${new Date(until).toISOString().slice(0, 16).replace('T', ' ')} UTC: Spam`;
    const signIn = await new Agent(t).form('/signin', { name: user.name, password: 'test-password-1' });
    expect(signIn.status).toBe(403);
    expect(await signIn.text()).toContain(message);
    await expect(makeCode(t, { userId: user.id, clientId: client.clientId })).rejects.toMatchObject({ message });
    // The public profile answers as before.
    expect(await answer(await fetch(`${t.baseUrl}/api/users/info?id=${user.id}`))).toEqual([200, { message: 'yes', user: expect.objectContaining({ id: user.id, name: user.name }) }]);
    expect((await fetch(`${t.baseUrl}/pfp/small/${user.id}.webp`)).status).toBe(200);

    // Suspending again replaces the reason and the end.
    const again = await mod.agent.json('POST', `/api/moderation/users/${user.id}/suspension`, { reason: 'Spam, still' });
    expect(((await again.json()) as { suspension: unknown }).suspension).toEqual({ reason: 'Spam, still', since: t.clock.now() });
    const refused = await new Agent(t).form('/signin', { name: user.name, password: 'test-password-1' });
    expect(await refused.text()).toContain('This account is suspended: Spam, still');

    expect((await mod.agent.json('DELETE', `/api/moderation/users/${user.id}/suspension`)).status).toBe(200);
    expect(await answer(await mod.agent.json('DELETE', `/api/moderation/users/${user.id}/suspension`))).toEqual([409, { message: 'This account is not suspended' }]);
    await new Agent(t).signIn(user);
    expect((await fetch(`${t.baseUrl}/api/oauth/whois`, { headers: bearer })).status).toBe(401);
  });

  it('ends by itself when `until` passes; an `until` in the past is 400', async () => {
    const user = await makeUser(t);
    expect(await answer(await mod.agent.json('POST', `/api/moderation/users/${user.id}/suspension`, { reason: 'r', until: t.clock.now() }))).toEqual([
      400,
      { message: 'until must be in the future' },
    ]);
    expect(await answer(await mod.agent.json('POST', `/api/moderation/users/${user.id}/suspension`, { reason: 'r', until: 'next tuesday' }))).toEqual([
      400,
      { message: 'until must be ms since the Unix epoch or an ISO 8601 date-time such as 2026-12-01T12:00:00Z' },
    ]);
    await mod.agent.json('POST', `/api/moderation/users/${user.id}/suspension`, { reason: 'Cool off', until: t.clock.now() + 60_000 });
    expect((await new Agent(t).form('/signin', { name: user.name, password: 'test-password-1' })).status).toBe(403);
    const game = await makeClient(t, admin.user.id);
    t.clock.advance(60_000);
    await new Agent(t).signIn(user);
    await expect(makeCode(t, { userId: user.id, clientId: game.clientId })).resolves.toMatch(/^[\w-]{43}$/);
    expect(await answer(await mod.agent.json('DELETE', `/api/moderation/users/${user.id}/suspension`))).toEqual([409, { message: 'This account is not suspended' }]);
  });

  it('refuses a suspended account with an authenticator app at the password step, before the second step', async () => {
    const user = await makeUser(t);
    await t.store.authenticatorApp.savePendingTotp(user.id, 'sealed', t.clock.now());
    expect(await t.store.authenticatorApp.confirmTotp(user.id, 'sealed', 1, t.clock.now(), [], NOTHING)).not.toBeUndefined();
    await mod.agent.json('POST', `/api/moderation/users/${user.id}/suspension`, { reason: 'r' });
    const res = await new Agent(t).form('/signin', { name: user.name, password: 'test-password-1' });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('This account is suspended: r');
  });

  it('refuses the game flow for a suspended player (no session is left to ask with)', async () => {
    const { agent, user } = await signedInAgent(t);
    await mod.agent.json('POST', `/api/moderation/users/${user.id}/suspension`, { reason: 'r' });
    const res = await agent.json('POST', '/api/games/1/codes', { client_id: 'x', scopes: ['userinfo'] });
    expect(res.status).toBe(401);
  });
});

describe('reports', () => {
  it('takes a report (201), one open per reporter and user, again once closed; 400 self, 404 unknown, 429 over the limit', async () => {
    const { agent, user } = await signedInAgent(t);
    const target = await makeUser(t);
    const res = await agent.json('POST', `/api/users/${target.id}/reports`, { reason: 'harassment', text: 'Mean bio' });
    const receipt = (await res.json()) as { id: number };
    expect([res.status, receipt]).toEqual([201, { id: receipt.id, reason: 'harassment', text: 'Mean bio', created_at: t.clock.now() }]);
    expect(await answer(await agent.json('POST', `/api/users/${target.id}/reports`, { reason: 'spam' }))).toEqual([
      409,
      { message: 'You already reported this user; a moderator will look at it' },
    ]);
    expect(await answer(await agent.json('POST', `/api/users/${user.id}/reports`, { reason: 'spam' }))).toEqual([400, { message: 'You cannot report yourself' }]);
    expect(await answer(await agent.json('POST', '/api/users/999999/reports', { reason: 'spam' }))).toEqual([404, { message: 'User not found' }]);

    const closed = await mod.agent.json('POST', `/api/moderation/reports/${receipt.id}/close`, { outcome: 'no_action' });
    expect(await answer(closed)).toEqual([
      200,
      {
        id: receipt.id,
        target: ref(target),
        reporter: ref(user),
        reason: 'harassment',
        text: 'Mean bio',
        created_at: t.clock.now(),
        closed_at: t.clock.now(),
        closed_by: ref(mod.user),
        outcome: 'no_action',
      },
    ]);
    expect(await answer(await mod.agent.json('POST', `/api/moderation/reports/${receipt.id}/close`, { outcome: 'no_action' }))).toEqual([
      409,
      { message: 'This report is closed already' },
    ]);
    expect(await answer(await mod.agent.json('POST', '/api/moderation/reports/999999/close', { outcome: 'no_action' }))).toEqual([404, { message: 'Report not found' }]);
    expect((await agent.json('POST', `/api/users/${target.id}/reports`, { reason: 'spam' })).status).toBe(201);
    // The limit (3 an hour in this suite) counted three reports: the fourth is refused.
    const other = await makeUser(t);
    const limited = await agent.json('POST', `/api/users/${other.id}/reports`, { reason: 'spam' });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(3000);
  });

  it('queues open reports by user, longest waiting first; only a moderator above the user may close one', async () => {
    const [a, b, c] = [await makeUser(t), await makeUser(t), await makeUser(t)];
    const first = await makeUser(t);
    const second = await moderator(1);
    const report = async (by: UserRecord, on: UserRecord): Promise<number> => {
      const agent = new Agent(t);
      await agent.signIn(by);
      t.clock.advance(1000);
      return ((await (await agent.json('POST', `/api/users/${on.id}/reports`, { reason: 'spam' })).json()) as { id: number }).id;
    };
    const r1 = await report(a, first);
    const r2 = await report(a, second.user);
    const r3 = await report(b, first);
    const r4 = await report(c, second.user);
    const queue = (await (await mod.agent.fetch('/api/moderation/reports')).json()) as { targets: { user: unknown; mod_level: number; first_reported_at: number; reports: { id: number }[] }[] };
    const mine = queue.targets.filter((g) => [first.id, second.user.id].includes((g.user as { id: number }).id));
    expect(mine.map((g) => [g.user, g.mod_level, g.reports.map((r) => r.id)])).toEqual([
      [ref(first), 0, [r1, r3]],
      [ref(second.user), 1, [r2, r4]],
    ]);
    expect(await answer(await mod.agent.json('POST', `/api/moderation/reports/${r2}/close`, { outcome: 'no_action' }))).toEqual([403, OUTRANKED]);
    expect((await admin.agent.json('POST', `/api/moderation/reports/${r2}/close`, { outcome: 'no_action' })).status).toBe(200);
    const found = (await (await mod.agent.fetch(`/api/moderation/users?q=${first.id}`)).json());
    expect(found).toEqual({ users: [{ id: first.id, name: first.name, mod_level: 0, suspended: false, open_reports: 2 }] });
  });
});

describe('the record and the export', () => {
  it('lists every action newest first, and the target exports them without moderator or reporter', async () => {
    const { agent, user } = await signedInAgent(t);
    const reporter = await signedInAgent(t);
    await agent.json('PATCH', '/api/account', { bio: 'bad' });
    const reportId = ((await (await reporter.agent.json('POST', `/api/users/${user.id}/reports`, { reason: 'hate', text: 'Hateful' })).json()) as { id: number }).id;
    await mod.agent.json('POST', `/api/moderation/users/${user.id}/bio-removal`, { reason: 'Hate speech' });
    await mod.agent.json('POST', `/api/moderation/reports/${reportId}/close`, { outcome: 'bio_hidden' });
    const now = t.clock.now();
    const record = await answer(await mod.agent.fetch(`/api/moderation/actions?target=${user.id}`));
    expect(record).toEqual([
      200,
      {
        actions: [
          { id: expect.any(Number), moderator: ref(mod.user), target: ref(user), action: 'close_report', report_id: reportId, outcome: 'bio_hidden', created_at: now },
          { id: expect.any(Number), moderator: ref(mod.user), target: ref(user), action: 'hide_bio', reason: 'Hate speech', created_at: now },
        ],
      },
    ]);
    const exported = (await (await agent.fetch('/api/account/export')).json()) as Record<string, unknown>;
    expect(exported.moderation_actions).toEqual([
      { action: 'hide_bio', reason: 'Hate speech', created_at: now },
      { action: 'close_report', outcome: 'bio_hidden', created_at: now },
    ]);
    expect(exported.bio_removed).toEqual({ reason: 'Hate speech', removed_at: now });
    const text = JSON.stringify(exported);
    for (const leak of [`"${mod.user.name}"`, `"${reporter.user.name}"`, 'Hateful', 'moderator', 'reporter']) expect(text).not.toContain(leak);

    // Deleting the target keeps the record, and takes the reports.
    await t.store.users.deleteUser(user.id, now);
    expect(((await (await mod.agent.fetch(`/api/moderation/actions?target=${user.id}`)).json()) as { actions: unknown[] }).actions).toEqual(
      (record[1] as { actions: unknown[] }).actions,
    );
    expect(await t.store.moderation.getReport(reportId)).toBeUndefined();
  });
});
