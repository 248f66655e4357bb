/**
 * The purge of expired codes, access and refresh tokens, device authorizations and sessions (src/purge/purge.ts): bounded batches, code rows
 * kept while a token from them can live, several instances at once, the background timer, the
 * operator CLI, and row counts that stay flat under a steady exchange load.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../src/cli/admin.js';
import { createLogger } from '../../src/log.js';
import { CODE_KEPT_AFTER_EXPIRY_MS, purgeExpired, startPurger, type Schedule } from '../../src/purge/purge.js';
import { openStoreAt } from '../../src/store/open.js';
import { makeClient, makeCode, makeUser, oauthErrorBody, startServer, tokenRequest, type TestClient, type TestServer } from '../helpers.js';

let t: TestServer;
let client: TestClient;
let userId: number;
beforeAll(async () => {
  t = await startServer();
  userId = (await makeUser(t)).id;
  client = await makeClient(t, userId);
});
afterAll(async () => t?.close());

const hex = () => randomBytes(32).toString('hex');

async function clear(): Promise<void> {
  await t.store.knex('access_tokens').delete();
  await t.store.knex('refresh_tokens').delete();
  await t.store.knex('device_authorizations').delete();
  await t.store.knex('auth_codes').delete();
  await t.store.knex('sessions').delete();
}

async function seed(kind: 'token' | 'refresh' | 'device' | 'code' | 'session', expiresAt: number, count = 1): Promise<string[]> {
  const keys = Array.from({ length: count }, hex);
  const now = t.clock.now();
  for (const key of keys) {
    if (kind === 'token') {
      await t.store.knex('access_tokens').insert({ token_hash: key, client_id: client.clientId, user_id: userId, scopes: 'userinfo', code_hash: null, expires_at: expiresAt, revoked_at: null, created_at: now });
    } else if (kind === 'refresh') {
      await t.store.knex('refresh_tokens').insert({
        token_hash: key,
        family_id: key,
        client_id: client.clientId,
        user_id: userId,
        scopes: 'userinfo offline_access',
        auth_time: now,
        amr: null,
        access_token_hash: hex(),
        family_expires_at: expiresAt,
        expires_at: expiresAt,
        used_at: null,
        revoked_at: null,
        created_at: now,
      });
    } else if (kind === 'device') {
      await t.store.knex('device_authorizations').insert({
        device_code_hash: key,
        user_code_hash: hex(),
        client_id: client.clientId,
        scopes: 'userinfo',
        interval_seconds: 5,
        last_polled_at: null,
        decision: null,
        user_id: null,
        auth_time: null,
        amr: null,
        decided_at: null,
        used_at: null,
        expires_at: expiresAt,
        created_at: now,
      });
    } else if (kind === 'code') {
      await t.store.knex('auth_codes').insert({ code_hash: key, client_id: client.clientId, user_id: userId, scopes: 'userinfo', redirect_uri: null, code_challenge: null, expires_at: expiresAt, used_at: null, created_at: now });
    } else {
      await t.store.knex('sessions').insert({ id_hash: key, data: '{}', expires_at: expiresAt, user_id: null });
    }
  }
  return keys;
}

async function counts(): Promise<{ tokens: number; refreshTokens: number; deviceAuthorizations: number; codes: number; sessions: number }> {
  const n = async (table: string) => Number(((await t.store.knex(table).count({ n: '*' }).first()) as { n: unknown }).n);
  return {
    tokens: await n('access_tokens'),
    refreshTokens: await n('refresh_tokens'),
    deviceAuthorizations: await n('device_authorizations'),
    codes: await n('auth_codes'),
    sessions: await n('sessions'),
  };
}

const deps = () => ({ store: t.store, now: t.clock.now });

describe('purgeExpired', () => {
  it('deletes what expired, in batches, and keeps what is live', async () => {
    await clear();
    const now = t.clock.now();
    await seed('token', now, 7); // expired at this instant
    const liveTokens = await seed('token', now + 1, 2);
    await seed('refresh', now);
    const liveRefreshTokens = await seed('refresh', now + 1);
    await seed('device', now, 4);
    const liveDevices = await seed('device', now + 1);
    await seed('session', now - 1, 5);
    const liveSessions = await seed('session', now + 1);
    const total = await purgeExpired(deps(), { batchSize: 3, pauseMs: 0 });
    expect(total).toEqual({ tokens: 7, refreshTokens: 1, deviceAuthorizations: 4, codes: 0, sessions: 5 });
    expect((await t.store.knex('access_tokens').pluck('token_hash')).sort()).toEqual(liveTokens.sort());
    expect(await t.store.knex('refresh_tokens').pluck('token_hash')).toEqual(liveRefreshTokens);
    expect(await t.store.knex('device_authorizations').pluck('device_code_hash')).toEqual(liveDevices);
    expect(await t.store.knex('sessions').pluck('id_hash')).toEqual(liveSessions);
  });

  it('keeps a code row for a token lifetime after the code expired, then deletes it', async () => {
    await clear();
    const now = t.clock.now();
    const kept = await seed('code', now - CODE_KEPT_AFTER_EXPIRY_MS + 1);
    await seed('code', now - CODE_KEPT_AFTER_EXPIRY_MS, 4);
    expect(CODE_KEPT_AFTER_EXPIRY_MS).toBe(600_000);
    expect(await purgeExpired(deps(), { batchSize: 2, pauseMs: 0 })).toEqual({ tokens: 0, refreshTokens: 0, deviceAuthorizations: 0, codes: 4, sessions: 0 });
    expect(await t.store.knex('auth_codes').pluck('code_hash')).toEqual(kept);
  });

  it('replay revocation still works after a purge: the code outlives its token', async () => {
    await clear();
    const code = await makeCode(t, { userId, clientId: client.clientId });
    const params = { grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: client.clientSecret };
    const first = await tokenRequest(t, params);
    const { access_token } = (await first.json()) as { access_token: string };
    // The code has expired (5 min), the token (10 min) has not: the purge must keep the code.
    t.clock.advance(599_000);
    try {
      await purgeExpired(deps(), { batchSize: 10, pauseMs: 0 });
      expect((await counts()).codes).toBe(1);
      const replay = await tokenRequest(t, params);
      expect([replay.status, await replay.json()]).toEqual([400, oauthErrorBody('invalid_grant', 'Authorization code has already been used; tokens issued from it are revoked')]);
      const whois = await fetch(`${t.baseUrl}/api/oauth/whois`, { headers: { Authorization: `Bearer ${access_token}` } });
      expect([whois.status, await whois.json()]).toEqual([401, { message: 'Access token has been revoked' }]);
    } finally {
      t.clock.advance(-599_000);
    }
  });

  it('two instances purging the same backlog at once delete every row exactly once, without errors', async () => {
    await clear();
    const now = t.clock.now();
    await seed('token', now - 1, 60);
    await seed('session', now - 1, 40);
    const second = openStoreAt(t.config.databaseUrl);
    try {
      const [a, b] = await Promise.all([
        purgeExpired(deps(), { batchSize: 5, pauseMs: 1 }),
        purgeExpired({ store: second, now: t.clock.now }, { batchSize: 5, pauseMs: 1 }),
      ]);
      expect({ tokens: a.tokens + b.tokens, sessions: a.sessions + b.sessions }).toEqual({ tokens: 60, sessions: 40 });
      expect(await counts()).toEqual({ tokens: 0, refreshTokens: 0, deviceAuthorizations: 0, codes: 0, sessions: 0 });
    } finally {
      await second.close();
    }
  });
});

/**
 * A Schedule that fires nothing by itself: the test sees every run the purger asks for (its delay)
 * and fires the one waiting when it chooses, so what a purger does between runs needs no wait.
 */
function manualSchedule() {
  const asked: { ms: number; run: () => void; state: 'waiting' | 'fired' | 'cancelled' }[] = [];
  const schedule: Schedule = (run, ms) => {
    const entry = { ms, run, state: 'waiting' as 'waiting' | 'fired' | 'cancelled' };
    asked.push(entry);
    return () => {
      if (entry.state === 'waiting') entry.state = 'cancelled';
    };
  };
  const waiting = () => asked.filter((e) => e.state === 'waiting');
  return {
    schedule,
    /** The delays of every run asked for, fired or not. */
    asked: () => asked.map((e) => e.ms),
    /** The delays of the runs asked for and neither fired nor cancelled. */
    waiting: () => waiting().map((e) => e.ms),
    /** Fires the one run waiting, as its timer would. */
    fire() {
      const [entry, ...more] = waiting();
      expect(entry !== undefined && more.length === 0, 'exactly one run waiting').toBe(true);
      entry!.state = 'fired';
      entry!.run();
    },
  };
}

describe('startPurger', () => {
  it('purges in the background every interval, logs the counts, and stops cleanly', async () => {
    await clear();
    await seed('token', t.clock.now() - 1, 3);
    const logger = createLogger('silent');
    const info = vi.spyOn(logger, 'info');
    const timers = manualSchedule();
    const purger = startPurger({ ...deps(), logger, schedule: timers.schedule }, 1, { batchSize: 2, pauseMs: 0 });
    try {
      // The first run is spread over the first interval; nothing is purged before it.
      const [first, ...more] = timers.waiting();
      expect(more).toEqual([]);
      expect(first).toBeGreaterThanOrEqual(0);
      expect(first).toBeLessThan(1000);
      expect((await counts()).tokens).toBe(3);
      timers.fire();
      // Once a run is over (two batches of at most 2), the next is asked for an interval later.
      await vi.waitFor(() => expect(timers.waiting()).toEqual([1000]));
      expect((await counts()).tokens).toBe(0);
      expect(info).toHaveBeenCalledWith({ purged: { tokens: 3, refreshTokens: 0, deviceAuthorizations: 0, codes: 0, sessions: 0 } }, 'purged expired rows');
      await seed('token', t.clock.now() - 1);
      timers.fire();
      await vi.waitFor(() => expect(timers.waiting()).toEqual([1000]));
      expect((await counts()).tokens).toBe(0);
      expect(info).toHaveBeenLastCalledWith({ purged: { tokens: 1, refreshTokens: 0, deviceAuthorizations: 0, codes: 0, sessions: 0 } }, 'purged expired rows');
    } finally {
      await purger.stop();
    }
    // Stopped: the run it was waiting for is cancelled and none is asked for again, so nothing
    // more is ever purged.
    expect(timers.waiting()).toEqual([]);
    expect(timers.asked()).toHaveLength(3);
  });

  it('stops during a run: the run ends after its batch and asks for no next one', async () => {
    await clear();
    await seed('token', t.clock.now() - 1, 3);
    const timers = manualSchedule();
    const purger = startPurger({ ...deps(), logger: createLogger('silent'), schedule: timers.schedule }, 1, { batchSize: 1, pauseMs: 0 });
    timers.fire();
    await purger.stop();
    expect(timers.waiting()).toEqual([]);
    expect(timers.asked()).toHaveLength(1);
    // The batch under way when stop() came (one row) finished; the other two are left for later.
    expect((await counts()).tokens).toBe(2);
  });

  it('does nothing with an interval of 0', async () => {
    await clear();
    const now = t.clock.now();
    const tokens = await seed('token', now - 1, 2);
    const codes = await seed('code', now - CODE_KEPT_AFTER_EXPIRY_MS - 1);
    const sessions = await seed('session', now - 1, 3);
    const logger = createLogger('silent');
    const info = vi.spyOn(logger, 'info');
    const error = vi.spyOn(logger, 'error');
    const timers = manualSchedule();
    const purger = startPurger({ ...deps(), logger, schedule: timers.schedule }, 0, { batchSize: 1, pauseMs: 0 });
    // No run is ever asked for (a purger with an interval of 1 s asks for its first one at once,
    // above), and a run is the purger's only way to delete anything.
    expect(timers.asked()).toEqual([]);
    await purger.stop();
    expect(await counts()).toEqual({ tokens: 2, refreshTokens: 0, deviceAuthorizations: 0, codes: 1, sessions: 3 });
    expect((await t.store.knex('access_tokens').pluck('token_hash')).sort()).toEqual(tokens.sort());
    expect(await t.store.knex('auth_codes').pluck('code_hash')).toEqual(codes);
    expect((await t.store.knex('sessions').pluck('id_hash')).sort()).toEqual(sessions.sort());
    expect([info.mock.calls, error.mock.calls]).toEqual([[], []]);
  });
});

describe('admin purge', () => {
  it('purges at once and prints the counts as one JSON object', async () => {
    await clear();
    const now = t.clock.now();
    await seed('token', now - 1, 2);
    await seed('refresh', now - 1);
    await seed('device', now - 1, 2);
    await seed('code', now - CODE_KEPT_AFTER_EXPIRY_MS - 1, 3);
    await seed('session', now - 1, 4);
    let stdout = '';
    let stderr = '';
    const code = await runCli(['purge'], { env: { DATABASE_URL: t.config.databaseUrl }, now: t.clock.now, stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
    expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: '{"tokens":2,"refreshTokens":1,"deviceAuthorizations":2,"codes":3,"sessions":4}\n', stderr: '' });
    expect(await counts()).toEqual({ tokens: 0, refreshTokens: 0, deviceAuthorizations: 0, codes: 0, sessions: 0 });
  });
});

describe('row counts under a steady exchange load', () => {
  it('stay flat once purges run: codes at most 15 minutes of traffic, tokens 10 minutes', async () => {
    await clear();
    const perMinute = 10;
    const history: { tokens: number; codes: number }[] = [];
    for (let minute = 0; minute < 24; minute++) {
      for (let i = 0; i < perMinute; i++) {
        const code = await makeCode(t, { userId, clientId: client.clientId });
        const res = await tokenRequest(t, { grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: client.clientSecret });
        expect(res.status).toBe(200);
      }
      await purgeExpired(deps(), { batchSize: 7, pauseMs: 0 });
      const { tokens, codes } = await counts();
      history.push({ tokens, codes });
      t.clock.advance(60_000);
    }
    // From minute 15 on, each minute's purge removes what the minute added.
    const steady = history.slice(15);
    expect(new Set(steady.map((h) => h.tokens))).toEqual(new Set([10 * perMinute]));
    expect(new Set(steady.map((h) => h.codes))).toEqual(new Set([15 * perMinute]));
  });
});
