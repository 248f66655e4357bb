/**
 * Metrics: Prometheus text on a separate listener, per operationId request counts and latency,
 * token exchanges and refusals by reason, code replays, failed sign-ins, rate-limit refusals,
 * database errors, picture conversions, process metrics; and none of it when metrics are off.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fs from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMetricsListener } from '../../src/metrics/listener.js';
import { createMetrics, type Metrics } from '../../src/metrics/metrics.js';
import { Agent, fixturesDir, makeClient, makeCode, makeUser, signedInAgent, startServer, tokenRequest, type TestServer } from '../helpers.js';

let t: TestServer;
let metrics: Metrics;
let listener: Server;
let metricsUrl: string;

beforeAll(async () => {
  metrics = createMetrics();
  t = await startServer({}, { metrics, limits: { signInIp: { points: 2, seconds: 600 } } });
  listener = await startMetricsListener(metrics, 0, '127.0.0.1', pino({ level: 'silent' }));
  metricsUrl = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/metrics`;
});
afterAll(async () => {
  listener?.close();
  await t?.close();
});

async function scrape(): Promise<string> {
  const res = await fetch(metricsUrl);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return res.text();
}

/** The value of one sample line, e.g. `idp_code_replays_total 1`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('metrics', () => {
  it('are served on their own listener only, in Prometheus text format', async () => {
    expect((await fetch(`${t.baseUrl}/metrics`)).status).toBe(404);
    const other = await fetch(metricsUrl.replace('/metrics', '/'));
    expect(other.status).toBe(404);
    const text = await scrape();
    expect(text).toContain('# TYPE idp_http_requests_total counter');
    expect(text).toContain('# TYPE idp_http_request_duration_seconds histogram');
    // Node process metrics.
    expect(text).toContain('# TYPE process_cpu_user_seconds_total counter');
    expect(text).toContain('# TYPE nodejs_eventloop_lag_seconds gauge');
  });

  it('count requests per operationId and status class, with a latency histogram', async () => {
    const unmatchedBefore = sample(await scrape(), 'idp_http_requests_total{operation="unmatched",status_class="4xx"}') ?? 0;
    const user = await makeUser(t);
    for (let i = 0; i < 3; i++) expect((await fetch(`${t.baseUrl}/api/users/info?id=${user.id}`)).status).toBe(200);
    expect((await fetch(`${t.baseUrl}/api/users/info?id=999999`)).status).toBe(404);
    expect((await fetch(`${t.baseUrl}/no/such/route`)).status).toBe(404);
    const text = await scrape();
    expect(sample(text, 'idp_http_requests_total{operation="getUserInfo",status_class="2xx"}')).toBe(3);
    expect(sample(text, 'idp_http_requests_total{operation="getUserInfo",status_class="4xx"}')).toBe(1);
    expect(sample(text, 'idp_http_requests_total{operation="unmatched",status_class="4xx"}')).toBe(unmatchedBefore + 1);
    expect(sample(text, 'idp_http_request_duration_seconds_count{operation="getUserInfo"}')).toBe(4);
    expect(sample(text, 'idp_http_request_duration_seconds_bucket{le="+Inf",operation="getUserInfo"}')).toBe(4);
  });

  it('count token exchanges by outcome and code replays', async () => {
    const user = await makeUser(t);
    const client = await makeClient(t, user.id);
    const code = await makeCode(t, { userId: user.id, clientId: client.clientId });
    const params = { grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: client.clientSecret };
    expect((await tokenRequest(t, params)).status).toBe(200);
    expect((await tokenRequest(t, params)).status).toBe(400);
    expect((await tokenRequest(t, { ...params, client_secret: 'wrong' })).status).toBe(401);
    expect((await tokenRequest(t, { ...params, grant_type: 'password' })).status).toBe(400);
    const text = await scrape();
    expect(sample(text, 'idp_token_exchanges_total{outcome="issued"}')).toBe(1);
    expect(sample(text, 'idp_token_exchanges_total{outcome="invalid_grant"}')).toBe(1);
    expect(sample(text, 'idp_token_exchanges_total{outcome="invalid_client"}')).toBe(1);
    expect(sample(text, 'idp_token_exchanges_total{outcome="invalid_request"}')).toBe(1);
    expect(sample(text, 'idp_code_replays_total')).toBe(1);
    expect(sample(text, 'idp_audit_events_total{event="code_replay_detected"}')).toBe(1);
  });

  it('count failed sign-ins by reason and rate-limit refusals', async () => {
    const user = await makeUser(t);
    const agent = new Agent(t);
    expect((await agent.form('/signin', { name: user.name, password: 'wrong password' })).status).toBe(401);
    expect((await agent.form('/signin', { name: user.name, password: 'wrong password' })).status).toBe(401);
    expect((await agent.form('/signin', { name: user.name, password: 'wrong password' })).status).toBe(429);
    const text = await scrape();
    expect(sample(text, 'idp_sign_in_failures_total{reason="wrong_password"}')).toBe(2);
    expect(sample(text, 'idp_sign_in_failures_total{reason="rate_limited"}')).toBe(1);
    expect(sample(text, 'idp_rate_limit_refusals_total{limit="signInIp"}')).toBe(1);
    await t.store.knex('rate_limits').delete();
  });

  it('time picture conversions by outcome', async () => {
    await t.store.knex('rate_limits').delete();
    const { agent } = await signedInAgent(t);
    const csrf = await agent.csrf();
    const upload = (bytes: Buffer) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(bytes)]), 'upload.bin');
      return agent.fetch('/api/account/picture', { method: 'PUT', body: form, headers: { 'X-CSRF-Token': csrf } });
    };
    expect((await upload(fs.readFileSync(path.join(fixturesDir, 'photo.jpg')))).status).toBe(200);
    expect((await upload(Buffer.from('not an image'))).status).toBe(400);
    const text = await scrape();
    expect(sample(text, 'idp_picture_conversion_duration_seconds_count{outcome="ok"}')).toBe(1);
    expect(sample(text, 'idp_picture_conversion_duration_seconds_count{outcome="failed"}')).toBe(1);
    expect(sample(text, 'idp_picture_conversion_duration_seconds_sum{outcome="ok"}')).toBeGreaterThan(0);
  });

  it('count database errors', async () => {
    const before = sample(await scrape(), 'idp_database_errors_total{kind="other"}') ?? 0;
    await expect(t.store.knex.raw('select * from no_such_table')).rejects.toThrow();
    // A raw knex call is not the store: only store methods are counted.
    expect(sample(await scrape(), 'idp_database_errors_total{kind="other"}') ?? 0).toBe(before);
    await t.store.knex.schema.renameTable('games', 'games_moved');
    try {
      expect((await fetch(`${t.baseUrl}/api/games`)).status).toBe(500);
    } finally {
      await t.store.knex.schema.renameTable('games_moved', 'games');
    }
    expect(sample(await scrape(), 'idp_database_errors_total{kind="other"}')).toBe(before + 1);
  });
});

describe('without metrics', () => {
  it('the app has no metrics object and still answers', async () => {
    const plain = await startServer();
    try {
      expect(plain.app.deps.metrics).toBeUndefined();
      expect((await fetch(`${plain.baseUrl}/healthz`)).status).toBe(200);
    } finally {
      await plain.close();
    }
  });
});
