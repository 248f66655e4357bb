/**
 * A PostgreSQL outage under load: the database is stopped for 20 seconds while requests keep
 * coming, then started again. Every request in the window answers 503 (a page for pages) within a
 * bounded time, never a 500 and never a hang; /healthz says 503; the service recovers by itself;
 * every write it acknowledged is still there afterwards.
 *
 * The cluster is the test's own (test/throwaway-postgres.ts), so it can be stopped. Needs
 * PostgreSQL's binaries (test/preconditions.ts: CI installs them; elsewhere skipped with a notice).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics, type Metrics } from '../../src/metrics/metrics.js';
import { UNAVAILABLE_MESSAGE } from '../../src/store/outage.js';
import { Agent, makeToken, makeUser, startServer, type TestServer } from '../helpers.js';
import { precondition } from '../preconditions.js';
import { postgresBinDir, ThrowawayPostgres } from '../throwaway-postgres.js';

const bin = postgresBinDir();
precondition('test/store/database-outage.test.ts', bin !== undefined, 'no PostgreSQL binaries under /usr/lib/postgresql (apt-get install postgresql)');

const OUTAGE_MS = 20_000;
/** The longest any request may take, outage or not: the pool, connect and statement bounds are well under it. */
const BOUND_MS = 10_000;

interface Outcome {
  kind: string;
  status: number;
  ms: number;
  at: number;
  body: string;
  type: string;
}

let pg: ThrowawayPostgres;
let t: TestServer;
let metrics: Metrics;

beforeAll(async () => {
  if (!bin) return;
  pg = await ThrowawayPostgres.create(bin);
  metrics = createMetrics({ processMetrics: false });
  t = await startServer({ DATABASE_URL: pg.url }, { metrics });
}, 120_000);

afterAll(async () => {
  await t?.close();
  await pg?.destroy();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!bin)('PostgreSQL outage', () => {
  it('answers 503 within a bounded time while the database is down, recovers by itself and loses no acknowledged write', async () => {
    const { user, client, token } = await makeToken(t);
    const writer = new Agent(t);
    const writerUser = await makeUser(t);
    await writer.signIn(writerUser);
    const acknowledged: string[] = [];
    const outcomes: Outcome[] = [];
    let running = true;
    let n = 0;

    const timed = async (kind: string, request: () => Promise<Response>): Promise<Response | undefined> => {
      const start = Date.now();
      const res = await request();
      const body = await res.text();
      outcomes.push({ kind, status: res.status, ms: Date.now() - start, at: start, body, type: res.headers.get('content-type') ?? '' });
      return res.status < 300 ? new Response(body, { status: res.status }) : undefined;
    };
    const requests: Record<string, () => Promise<unknown>> = {
      usersInfo: () => timed('usersInfo', () => fetch(`${t.baseUrl}/api/users/info?id=${user.id}`)),
      // The default picture's address: the route reads the pfpTimestamp (a prepared statement on
      // PostgresStore's pool of its own) before it answers.
      picture: () => timed('picture', () => fetch(`${t.baseUrl}/pfp/medium/${user.id}.webp`)),
      whois: () => timed('whois', () => fetch(`${t.baseUrl}/api/oauth/whois`, { headers: { Authorization: `Bearer ${token}` } })),
      token: () =>
        timed('token', () =>
          fetch(`${t.baseUrl}/api/oauth/token`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ grant_type: 'authorization_code', code: 'no-such-code', client_id: client.clientId, client_secret: client.clientSecret }).toString(),
          }),
        ),
      // A visitor's sign-in page reads nothing (no session row before a sign-in: its CSRF token
      // is a signed cookie), so it stays up; a signed-in person's page reads the session.
      signInPage: () => timed('signInPage', () => fetch(`${t.baseUrl}/signin`)),
      accountPage: () => timed('accountPage', () => writer.fetch('/account')),
      healthz: () => timed('healthz', () => fetch(`${t.baseUrl}/healthz`)),
      write: async () => {
        const name = `app-${++n}`;
        const res = await timed('write', () =>
          writer.fetch('/api/apps', {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf },
            body: JSON.stringify({ name, redirect_uris: ['https://app.example/cb'] }),
          }),
        );
        if (res) acknowledged.push(((await res.json()) as { client_id: string }).client_id);
      },
    };
    const csrf = await writer.csrf();
    const loops = Object.values(requests).map(async (request) => {
      while (running) {
        await request();
        await sleep(100);
      }
    });

    await sleep(2_000);
    const downAt = Date.now();
    await pg.stop();
    await sleep(OUTAGE_MS);
    // pg_ctl returns once the server accepts connections, so the outage ends when it is started.
    const upAt = Date.now();
    await pg.start();

    // Recovery without a restart: /healthz turns 200 again on its own.
    let healthy = false;
    for (let i = 0; i < 60 && !healthy; i++) {
      healthy = (await fetch(`${t.baseUrl}/healthz`)).status === 200;
      if (!healthy) await sleep(500);
    }
    expect(healthy).toBe(true);
    const recoveredAt = Date.now();
    await sleep(3_000);
    running = false;
    await Promise.all(loops);

    // Never a 500, never over the bound.
    expect(outcomes.filter((o) => o.status >= 500 && o.status !== 503)).toEqual([]);
    expect(outcomes.filter((o) => o.ms > BOUND_MS)).toEqual([]);
    // Every kind of request met the outage, and answered it with a 503: {message}, or a page;
    // the visitor's sign-in page, which needs no database, with the page itself.
    const during = outcomes.filter((o) => o.at > downAt + 1_000 && o.at + o.ms < upAt);
    for (const kind of Object.keys(requests)) {
      const seen = during.filter((o) => o.kind === kind);
      expect(seen.length, kind).toBeGreaterThan(0);
      expect(seen.map((o) => o.status), kind).toEqual(seen.map(() => (kind === 'signInPage' ? 200 : 503)));
    }
    for (const o of during) {
      if (o.kind === 'signInPage') {
        expect(o.type).toBe('text/html; charset=utf-8');
        expect(o.body).toContain('<form method="post" action="/signin" class="stack">');
      } else if (o.kind === 'accountPage') {
        expect(o.type).toBe('text/html; charset=utf-8');
        expect(o.body).toContain(UNAVAILABLE_MESSAGE);
      } else if (o.kind === 'healthz') {
        expect(JSON.parse(o.body)).toEqual({ message: 'Database unavailable' });
      } else if (o.kind === 'token') {
        // The token endpoint's errors carry RFC 6749 5.2's code beside the message.
        expect(JSON.parse(o.body), o.kind).toEqual({ message: UNAVAILABLE_MESSAGE, error: 'temporarily_unavailable', error_description: UNAVAILABLE_MESSAGE });
      } else {
        expect(JSON.parse(o.body), o.kind).toEqual({ message: UNAVAILABLE_MESSAGE });
      }
    }
    // After recovery, everything answers as before the outage.
    const after = outcomes.filter((o) => o.at > recoveredAt);
    expect(after.length).toBeGreaterThan(0);
    expect(after.filter((o) => o.status >= 500)).toEqual([]);
    // The outage shows in the metrics.
    const text = await metrics.registry.metrics();
    expect(Number(/^idp_database_errors_total\{kind="unavailable"\} (\d+)$/m.exec(text)?.[1])).toBeGreaterThan(0);
    expect(text).toMatch(/^idp_http_requests_total\{operation="getUserInfo",status_class="5xx"\} [1-9]/m);
    // Every acknowledged write survived.
    expect(acknowledged.length).toBeGreaterThan(10);
    const stored = await t.store.apps.listAppsByOwner(writerUser.id);
    const storedIds = new Set(stored.map((a) => a.clientId));
    expect(acknowledged.filter((id) => !storedIds.has(id))).toEqual([]);
  }, 120_000);
});
