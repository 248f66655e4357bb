import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { updateUser } from '../../src/accounts/users.js';
import { FULL_PROFILE, publicUser } from '../fixtures/users.js';
import { makeUser, startServer, type TestServer } from '../helpers.js';

let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(async () => t.close());

const PUBLIC_KEYS = ['bio', 'equippedFlair', 'flairs', 'id', 'lastHeartbeat', 'modLevel', 'name', 'playMinutes'];

type Row = Record<string, unknown>;

/**
 * The rows the database hands the store while `run` runs: through knex, through better-sqlite3's
 * prepared statements (the hot reads on a SQLite file) and through a `pg` pool's queries (the
 * hot reads on PostgreSQL).
 */
async function rowsRead(run: () => Promise<void>): Promise<Row[]> {
  const rows: Row[] = [];
  const onResponse = (response: unknown) => {
    if (Array.isArray(response)) rows.push(...(response as Row[]));
    else if (response && typeof response === 'object') rows.push(response as Row);
  };
  const probe = new Database(':memory:');
  const statement = Object.getPrototypeOf(probe.prepare('select 1')) as { get(...args: unknown[]): unknown };
  probe.close();
  const get = vi.spyOn(statement, 'get');
  const poolQuery = vi.spyOn(pg.Pool.prototype, 'query');
  t.store.knex.on('query-response', onResponse);
  try {
    await run();
    for (const r of get.mock.results) if (r.type === 'return' && r.value) rows.push(r.value as Row);
    for (const r of poolQuery.mock.results) if (r.type === 'return') rows.push(...(await (r.value as unknown as Promise<{ rows: Row[] }>)).rows);
  } finally {
    t.store.knex.off('query-response', onResponse);
    get.mockRestore();
    poolQuery.mockRestore();
  }
  return rows;
}

function info(query: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${t.baseUrl}/api/users/info${query}`, init);
}

async function expectJson(res: Response, status: number, body: unknown): Promise<Record<string, unknown>> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const json = (await res.json()) as Record<string, unknown>;
  expect(json).toEqual(body);
  return json;
}

describe('GET /api/users/info: success', () => {
  it('a fresh user: exactly the public fields with their defaults, no pfpTimestamp key', async () => {
    const user = await makeUser(t);
    const res = await info(`?id=${user.id}`);
    const body = await expectJson(res, 200, {
      message: 'yes',
      user: publicUser(user),
    });
    expect(Object.keys(body).sort()).toEqual(['message', 'user']);
    expect(Object.keys(body.user as object).sort()).toEqual(PUBLIC_KEYS);
  });

  it('never exposes email, passwordHash or any non-public key', async () => {
    const user = await makeUser(t);
    await updateUser(t.store, user.id, { bio: 'hi', modLevel: 2 });
    expect(await t.store.users.swapPfpTimestamp(user.id, null, 1733707565493)).toBe(true);
    const res = await info(`?id=${user.id}`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain(user.email);
    expect(text).not.toContain(user.passwordHash);
    const body = JSON.parse(text) as { message: string; user: Record<string, unknown> };
    expect(Object.keys(body).sort()).toEqual(['message', 'user']);
    expect(Object.keys(body.user).sort()).toEqual([...PUBLIC_KEYS, 'pfpTimestamp'].sort());
    expect(body.user).not.toHaveProperty('email');
    expect(body.user).not.toHaveProperty('passwordHash');
    expect(body.user).not.toHaveProperty('createdAt');
  });

  it('reads only the public columns from the database, in one row', async () => {
    const user = await makeUser(t);
    await updateUser(t.store, user.id, { bio: 'b', modLevel: 1 });
    const rows = await rowsRead(async () => {
      const res = await info(`?id=${user.id}`);
      expect(res.status).toBe(200);
      await res.json();
    });
    expect(rows).toHaveLength(1);
    expect(Object.keys(rows[0]!).sort()).toEqual(
      ['bio', 'equipped_flair', 'flairs', 'id', 'last_heartbeat', 'mod_level', 'name', 'pfp_timestamp', 'play_minutes'],
    );
  });

  it('an update through users.updateUser appears on the very next request', async () => {
    const user = await makeUser(t);
    const before = await info(`?id=${user.id}`);
    expect(before.status).toBe(200);
    await before.json();

    await updateUser(t.store, user.id, FULL_PROFILE);
    const res = await info(`?id=${user.id}`);
    await expectJson(res, 200, {
      message: 'yes',
      user: publicUser(user, FULL_PROFILE),
    });
  });

  it('an update through store.users.updateUser appears on the very next request', async () => {
    const user = await makeUser(t);
    await t.store.users.updateUser(user.id, { bio: 'short bio', playMinutes: 7, modLevel: 3 });
    const res = await info(`?id=${user.id}`);
    await expectJson(res, 200, {
      message: 'yes',
      user: publicUser(user, { bio: 'short bio', playMinutes: 7, modLevel: 3 }),
    });
  });

  it('pfpTimestamp appears when set, and disappears when unset', async () => {
    const user = await makeUser(t);
    expect(await t.store.users.swapPfpTimestamp(user.id, null, 1733707565493)).toBe(true);
    const res = await info(`?id=${user.id}`);
    await expectJson(res, 200, {
      message: 'yes',
      user: publicUser(user, { pfpTimestamp: 1733707565493 }),
    });

    expect(await t.store.users.swapPfpTimestamp(user.id, 1733707565493, null)).toBe(true);
    const after = await info(`?id=${user.id}`);
    const body = await expectJson(after, 200, {
      message: 'yes',
      user: publicUser(user),
    });
    expect(Object.keys(body.user as object).sort()).toEqual(PUBLIC_KEYS);
  });
});

describe('GET /api/users/info: 400 Invalid user ID', () => {
  it('missing id', async () => {
    await expectJson(await info(''), 400, { message: 'Invalid user ID' });
  });

  it.each([
    [''],
    ['abc'],
    ['1.5'],
    ['-1'],
    ['0'],
    ['1e3'],
    [' 1'],
    ['0x10'],
    ['+1'],
    ['01'],
    ['99999999999999999999'],
    ['9007199254740992'],
    ['1 '],
    ['1a'],
  ])('id=%j', async (id) => {
    await expectJson(await info(`?${new URLSearchParams({ id }).toString()}`), 400, { message: 'Invalid user ID' });
  });

  it('duplicated id=1&id=2', async () => {
    const user = await makeUser(t);
    await expectJson(await info(`?id=${user.id}&id=${user.id}`), 400, { message: 'Invalid user ID' });
    await expectJson(await info('?id=1&id=2'), 400, { message: 'Invalid user ID' });
  });
});

describe('GET /api/users/info: 404', () => {
  it('an unknown id', async () => {
    await expectJson(await info('?id=987654321'), 404, { message: 'User not found' });
  });

  it('the largest safe integer, unknown', async () => {
    await expectJson(await info('?id=9007199254740991'), 404, { message: 'User not found' });
  });
});

describe('CORS', () => {
  it('with an Origin header: Access-Control-Allow-Origin *, no credentials', async () => {
    const user = await makeUser(t);
    const res = await info(`?id=${user.id}`, { headers: { Origin: 'https://game.example' } });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('vary')).toBeNull();
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    await expectJson(res, 200, {
      message: 'yes',
      user: publicUser(user),
    });
  });

  it('errors carry the CORS header too, so browsers can read them', async () => {
    const res = await info('?id=abc', { headers: { Origin: 'https://game.example' } });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    await expectJson(res, 400, { message: 'Invalid user ID' });
  });

  it('an OPTIONS preflight answers 204 with Access-Control-Allow-Origin *', async () => {
    const res = await info('?id=1', {
      method: 'OPTIONS',
      headers: { Origin: 'https://game.example', 'Access-Control-Request-Method': 'GET' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(res.headers.get('access-control-allow-methods')).toContain('GET');
    expect(await res.text()).toBe('');
  });
});

describe('routing errors', () => {
  it('an unknown route is 404 {message}', async () => {
    const res = await fetch(`${t.baseUrl}/api/users/nope`);
    await expectJson(res, 404, { message: 'No such route: GET /api/users/nope' });
  });

  it('POST /api/users/info is 405 with Allow: GET', async () => {
    const res = await info('?id=1', { method: 'POST' });
    expect(res.headers.get('allow')).toBe('GET');
    await expectJson(res, 405, { message: 'Method POST is not allowed on /api/users/info' });
  });

  it('DELETE /api/users/info is 405 with Allow: GET', async () => {
    const res = await info('?id=1', { method: 'DELETE' });
    expect(res.headers.get('allow')).toBe('GET');
    await expectJson(res, 405, { message: 'Method DELETE is not allowed on /api/users/info' });
  });
});
