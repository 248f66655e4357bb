/**
 * What the operator learns of an upstream sign-in that fails (issue 51): every failure, at the
 * start and at the callback, is an audit line `upstream_sign_in_failed` with its reason and a
 * warning that names the upstream, the reason and what went wrong, never the client secret; the
 * person sees the sign-in page with the reason, as before. An issuer nothing listens at, a client
 * secret sealed under another key (at the start, and at the callback after the key changed), a
 * token endpoint that went away or answers garbage.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { seal } from '../../src/security/sealed.js';
import { addUpstream } from '../../src/upstreams/upstreams.js';
import { Agent, startServer, type TestServer } from '../helpers.js';

const SECRET = 'client-secret-that-never-shows-0123';
const OTHER_KEY = 'a-session-secret-that-is-not-the-servers-0123456789';
const UPSTREAM_SECRET_INFO = 'identity-profile-service: upstream client secret encryption';

type Line = Record<string, unknown>;
const lines: string[] = [];
/** Every line of the file's tests (lines is this test's own). */
const everything: string[] = [];
let t: TestServer;
/** An issuer whose discovery is right; its token endpoint answers garbage. */
let issuerServer: http.Server;
let issuer: string;
let gonePort: number;

async function freeClosedPort(): Promise<number> {
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const { port } = closed.address() as AddressInfo;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  return port;
}

async function startIssuer(port = 0): Promise<void> {
  issuerServer = http.createServer((req, res) => {
    if (req.url === '/.well-known/openid-configuration') {
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ issuer, authorization_endpoint: `${issuer}/auth`, token_endpoint: `${issuer}/token`, jwks_uri: `${issuer}/jwks` }));
      return;
    }
    res.setHeader('Content-Type', 'text/html');
    res.end('<html>not a token</html>');
  });
  await new Promise<void>((resolve) => issuerServer.listen(port, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(issuerServer.address() as AddressInfo).port}`;
}

const parsed = (): Line[] => lines.map((l) => JSON.parse(l) as Line);
const audited = () => parsed().filter((l) => l.event === 'upstream_sign_in_failed').map(({ upstream, ip, reason }) => ({ upstream, ip, reason }));
const warned = () => parsed().filter((l) => l.level === 40).map(({ upstream, reason, detail, msg }) => ({ upstream, reason, detail, msg }));

async function reasonOf(res: Response): Promise<[number, string | undefined]> {
  return [res.status, /<p class="error" id="error-message">([^<]*)<\/p>/.exec(await res.text())?.[1]];
}

/** Starts a sign-in through `slug`; the state its redirect carries. */
async function started(agent: Agent, slug: string): Promise<string> {
  const res = await agent.form(`/signin/upstream/${slug}`, {});
  expect(res.status, await res.clone().text()).toBe(303);
  return new URL(res.headers.get('location')!).searchParams.get('state')!;
}

beforeAll(async () => {
  const logger = pino({ level: 'info' }, { write: (line: string) => void (lines.push(line), everything.push(line)) });
  t = await startServer({}, { logger });
  const registry = { store: t.store, now: t.clock.now, secrets: t.config.sessionSecrets };
  gonePort = await freeClosedPort();
  await startIssuer();
  await addUpstream(registry, { name: 'Gone', source: { issuer: `http://127.0.0.1:${gonePort}` }, clientId: 'c', clientSecret: SECRET });
  await addUpstream({ ...registry, secrets: [OTHER_KEY] }, { name: 'Sealed Elsewhere', source: { issuer }, clientId: 'c', clientSecret: SECRET });
  await addUpstream(registry, { name: 'Flaky', source: { issuer }, clientId: 'c', clientSecret: SECRET });
});
afterAll(async () => {
  issuerServer?.close();
  await t?.close();
});
beforeEach(() => {
  lines.length = 0;
});

describe('a failed upstream sign-in is audited and logged with its reason', () => {
  it('an issuer nothing listens at: 503 "ask later" at the start, audited unreachable, a warning naming the upstream and the refused connection', async () => {
    const res = await new Agent(t).form('/signin/upstream/gone', {});
    expect(await reasonOf(res)).toEqual([503, 'Gone cannot be reached now: try again later']);
    expect(audited()).toEqual([{ upstream: 'gone', ip: '127.0.0.1', reason: 'unreachable' }]);
    const detail = `connect ECONNREFUSED 127.0.0.1:${gonePort}`;
    expect(warned()).toEqual([{ upstream: 'gone', reason: 'unreachable', detail, msg: `signing in through Gone failed: it cannot be reached (${detail})` }]);
  });

  it('a client secret sealed under another key: 503 "ask the operator" at the start, audited secret_unreadable, a warning that says what to do', async () => {
    const res = await new Agent(t).form('/signin/upstream/sealed-elsewhere', {});
    expect(await reasonOf(res)).toEqual([503, 'Signing in with Sealed Elsewhere is not possible now: ask the operator']);
    expect(audited()).toEqual([{ upstream: 'sealed-elsewhere', ip: '127.0.0.1', reason: 'secret_unreadable' }]);
    expect(warned()).toEqual([
      {
        upstream: 'sealed-elsewhere',
        reason: 'secret_unreadable',
        detail: undefined,
        msg: "signing in through Sealed Elsewhere failed: its client secret cannot be unsealed with SESSION_SECRET (add the upstream again with the server's key)",
      },
    ]);
  });

  it('at the callback: a token endpoint answering garbage (502, upstream_error), a client secret no longer opening (503, secret_unreadable), a token endpoint gone (503, unreachable)', async () => {
    const agent = new Agent(t);
    let state = await started(agent, 'flaky');
    expect(await reasonOf(await agent.fetch(`/signin/upstream/flaky/callback?code=abc&state=${state}`))).toEqual([
      502,
      'Flaky answered something that cannot be used: try again, or sign in another way',
    ]);

    // The key changed between the start and the callback.
    state = await started(agent, 'flaky');
    const row = await t.store.knex('upstream_providers').where({ slug: 'flaky' }).first<{ client_secret_sealed: string }>();
    await t.store.knex('upstream_providers').where({ slug: 'flaky' }).update({ client_secret_sealed: await seal(OTHER_KEY, UPSTREAM_SECRET_INFO, SECRET) });
    expect(await reasonOf(await agent.fetch(`/signin/upstream/flaky/callback?code=abc&state=${state}`))).toEqual([503, 'Signing in with Flaky is not possible now: ask the operator']);
    await t.store.knex('upstream_providers').where({ slug: 'flaky' }).update({ client_secret_sealed: row.client_secret_sealed });

    // Gone between the start and the callback.
    state = await started(agent, 'flaky');
    await new Promise<void>((resolve) => issuerServer.close(() => resolve()));
    issuerServer.closeAllConnections();
    const port = new URL(issuer).port;
    expect(await reasonOf(await agent.fetch(`/signin/upstream/flaky/callback?code=abc&state=${state}`))).toEqual([503, 'Flaky cannot be reached now: try again later']);
    await startIssuer(Number(port));

    expect(audited()).toEqual([
      { upstream: 'flaky', ip: '127.0.0.1', reason: 'upstream_error' },
      { upstream: 'flaky', ip: '127.0.0.1', reason: 'secret_unreadable' },
      { upstream: 'flaky', ip: '127.0.0.1', reason: 'unreachable' },
    ]);
    const warnings = warned();
    expect(warnings.map((w) => [w.upstream, w.reason])).toEqual([
      ['flaky', 'upstream_error'],
      ['flaky', 'secret_unreadable'],
      ['flaky', 'unreachable'],
    ]);
    expect(warnings[0]!.msg).toMatch(/^signing in through Flaky failed: its answer cannot be used \(.+\)$/);
    expect(warnings[2]).toEqual({
      upstream: 'flaky',
      reason: 'unreachable',
      detail: `connect ECONNREFUSED 127.0.0.1:${port}`,
      msg: `signing in through Flaky failed: it cannot be reached (connect ECONNREFUSED 127.0.0.1:${port})`,
    });
  });

  it('no line written by any of these failures carries the client secret', () => {
    expect(everything.length).toBeGreaterThan(10);
    for (const line of everything) expect(line).not.toContain(SECRET);
  });
});
