/**
 * Anonymous requests store nothing (issue 28): cookie-less page views and GET /api/session write no
 * session row; the CSRF token of a visitor's forms comes from a signed cookie (idp.csrf) instead,
 * and is still refused when missing, wrong, from another visitor or under a forged cookie.
 */
import fs from 'node:fs';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, makeUser, startServer, TEST_PASSWORD, type TestServer } from '../helpers.js';

let t: TestServer;
let userId: number;
beforeAll(async () => {
  t = await startServer({}, { limits: { signInIp: { points: 1000, seconds: 600 }, signUpIp: { points: 1000, seconds: 600 } } });
  userId = (await makeUser(t)).id;
});
afterAll(async () => t?.close());

const sessionRows = async (): Promise<number> => Number((await t.store.knex('sessions').count({ n: '*' }))[0]!.n);

/** Every page of the contract (a GET answering text/html), with its path parameters filled in. */
function pages(): string[] {
  type Response = { content?: Record<string, unknown>; $ref?: string };
  const contract = yaml.load(fs.readFileSync('openapi.yaml', 'utf8')) as {
    paths: Record<string, { get?: { responses: Record<string, Response> } }>;
    components: { responses: Record<string, Response> };
  };
  const html = (r: Response) => (r.$ref ? contract.components.responses[r.$ref.split('/').pop()!]! : r).content?.['text/html'] !== undefined;
  return Object.entries(contract.paths)
    .filter(([, ops]) => Object.values(ops.get?.responses ?? {}).some(html))
    .map(([path]) => path.replace('{id}', String(userId)).replace('{gameId}', 'no-such-game'));
}

async function post(agent: Agent, path: string, fields: Record<string, string>): Promise<Response> {
  return agent.fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
}

describe('anonymous requests store nothing', () => {
  it('1,000 cookie-less GET /api/session, 1,000 GET /signin and 100 views of every other page leave no session row', async () => {
    const all = pages();
    expect(all).toEqual(expect.arrayContaining(['/', '/signin', '/signup', '/forgot-password', '/account', '/oauth', `/users/${userId}`]));
    const before = await sessionRows();
    const requests = [
      ...Array.from({ length: 1000 }, () => '/api/session'),
      ...Array.from({ length: 1000 }, () => '/signin'),
      ...all.filter((p) => p !== '/signin').flatMap((p) => Array.from({ length: 100 }, () => p)),
    ];
    const statuses = new Set<number>();
    for (let i = 0; i < requests.length; i += 50) {
      const batch = await Promise.all(requests.slice(i, i + 50).map((p) => fetch(`${t.baseUrl}${p}`, { redirect: 'manual' })));
      for (const res of batch) {
        statuses.add(res.status);
        await res.arrayBuffer();
      }
    }
    expect([...statuses].every((s) => s < 500)).toBe(true);
    expect((await sessionRows()) - before).toBe(0);
  });

  it('a visitor gets a CSRF token and a signed idp.csrf cookie, no session cookie; the token stays the same secret across requests', async () => {
    const agent = new Agent(t);
    const res = await agent.fetch('/api/session');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { signed_in: boolean; csrf_token: string };
    expect(body.signed_in).toBe(false);
    expect(body.csrf_token).toMatch(/^[\w-]+$/);
    const cookie = res.headers.getSetCookie().join('\n');
    expect(cookie).toMatch(/^idp\.csrf=[\w-]+; path=\/; expires=.+; samesite=lax; httponly$/m);
    expect(cookie).toMatch(/^idp\.csrf\.sig=/m);
    expect(cookie).not.toMatch(/idp\.sid/);
    const again = await agent.fetch('/signin');
    expect(again.headers.getSetCookie()).toEqual([]); // the cookie it has is kept
  });
});

describe('CSRF for visitors (signed double-submit cookie)', () => {
  const login = async () => ({ name: (await makeUser(t)).name, password: TEST_PASSWORD });

  it('sign-in with the cookie and its token works, and only then a session row is written', async () => {
    const agent = new Agent(t);
    const csrf = await agent.csrf();
    const before = await sessionRows();
    const res = await post(agent, '/signin', { _csrf: csrf, ...(await login()) });
    expect(res.status).toBe(303);
    expect(agent.cookies.has('idp.sid')).toBe(true);
    expect((await sessionRows()) - before).toBe(1);
    const session = (await (await agent.fetch('/api/session')).json()) as { signed_in: boolean; csrf_token: string };
    expect(session.signed_in).toBe(true);
    // Signed in, the session's own secret counts, not the visitor cookie's: the old token is refused.
    const stale = await agent.fetch('/api/account/signout-everywhere', { method: 'POST', headers: { 'X-CSRF-Token': csrf } });
    expect([stale.status, await stale.json()]).toEqual([403, { message: 'Invalid CSRF token' }]);
  });

  it('sign-up works for a visitor with the cookie and its token (it signs nobody in, so stores no session either)', async () => {
    const agent = new Agent(t);
    const name = `visitor${Date.now()}`;
    const before = await sessionRows();
    const res = await post(agent, '/signup', { _csrf: await agent.csrf(), name, email: `${name}@example.com`, password: 'a-long-password-1' });
    expect(res.status).toBe(200);
    expect(await t.store.users.getUserByName(name)).toBeDefined();
    expect(agent.cookies.has('idp.sid')).toBe(false);
    expect((await sessionRows()) - before).toBe(0);
  });

  const refusals: [string, (agent: Agent, csrf: string) => Promise<Record<string, string>>, (agent: Agent) => void][] = [
    ['no token', async () => ({}), () => {}],
    ['a wrong token', async () => ({ _csrf: 'abc-def' }), () => {}],
    ['the token of another visitor', async () => ({ _csrf: await new Agent(t).csrf() }), () => {}],
    ['the token without its cookie', async (_a, csrf) => ({ _csrf: csrf }), (agent) => agent.cookies.clear()],
    [
      'a cookie whose signature does not match (secret swapped)',
      async (_a, csrf) => ({ _csrf: csrf }),
      (agent) => agent.cookies.set('idp.csrf', 'AAAAAAAAAAAAAAAAAAAAAAAA'),
    ],
  ];
  for (const [what, fields, tamper] of refusals) {
    it(`refuses a visitor's sign-in with ${what}: 403, no session row`, async () => {
      const agent = new Agent(t);
      const csrf = await agent.csrf();
      const extra = await fields(agent, csrf);
      tamper(agent);
      const before = await sessionRows();
      const res = await post(agent, '/signin', { ...extra, ...(await login()) });
      expect(res.status).toBe(403);
      expect(await res.text()).toContain('Invalid CSRF token');
      expect(agent.cookies.has('idp.sid')).toBe(false);
      expect((await sessionRows()) - before).toBe(0);
    });
  }
});
