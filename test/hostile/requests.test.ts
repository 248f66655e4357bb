/**
 * Property-based hostile input (fast-check). For every operation of openapi.yaml, requests are
 * generated from the contract, mostly invalid: wrong types, missing, extra and repeated parameters,
 * huge values, odd percent-encodings and raw bytes, unicode, abused headers, broken and oversized
 * bodies, with and without a signed-in session and a valid CSRF token (so they get past the auth
 * checks). Invariants: never a 5xx; every error of a JSON operation is exactly `{message}` JSON with
 * a 4xx, and of a page an HTML page; every response matches the contract (startServer turns on
 * response validation, which turns a contract mismatch into a 500).
 */
import http from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { policyOf } from '../../src/http/policy.js';
import { assertWithSeed, caseFor, operations, RUNS, SEED, type Case } from './corpus.js';
import { Agent, makeClient, makeCode, signedInAgent, startServer, type TestServer } from '../helpers.js';

// ---- sending -------------------------------------------------------------------------------

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

let t: TestServer;
let agent: Agent;
let port: number;
const counts = new Map<string, number>();
let ran = 0;

async function send(c: Case): Promise<Answer> {
  const headers: Record<string, string> = {};
  for (const [k, v] of c.headers) headers[k] = v;
  if (c.session !== 'none') headers.Cookie = `${agent.cookieHeader()}${headers.Cookie ? `; ${headers.Cookie}` : ''}`;
  if (c.session === 'signed-in+csrf') headers['X-CSRF-Token'] = await agent.csrf();
  if (c.contentType !== undefined) headers['Content-Type'] = c.contentType;
  if (c.body !== undefined) headers['Content-Length'] = String(c.body.length);
  const query = c.query.map(([k, v]) => `${encodeURIComponent(k)}=${v}`).join('&');
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: c.method, path: c.path + (query ? `?${query}` : ''), headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (b: Buffer) => chunks.push(b));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    // The server may answer (413, 415) before reading a large body and close: that is its right.
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' || err.code === 'EPIPE' ? resolve({ status: 0, headers: {}, body: Buffer.alloc(0) }) : reject(err)));
    req.end(c.body);
  });
}

function describeCase(c: Case, a: Answer): string {
  return `${c.method} ${c.path} query=${JSON.stringify(c.query)} headers=${JSON.stringify(c.headers)} type=${c.contentType} session=${c.session} body=${c.body?.subarray(0, 200).toString('latin1')} -> ${a.status} ${a.body.subarray(0, 300).toString()}`;
}

function checkAnswer(c: Case, a: Answer): void {
  if (a.status === 0) return; // connection cut after an early answer to an oversized body
  const what = describeCase(c, a);
  expect(a.status, what).toBeLessThan(500);
  if (a.status < 400 || c.method === 'HEAD') return;
  const type = String(a.headers['content-type'] ?? '');
  if (policyOf(t.app.api.getOperation(c.op.operationId)).page && type.startsWith('text/html')) {
    expect(a.body.toString(), what).toMatch(/^<!doctype html>/i);
    return;
  }
  expect(type, what).toBe('application/json; charset=utf-8');
  const body = JSON.parse(a.body.toString()) as unknown;
  // A request line Node's parser refuses never reaches a route (src/http/client-errors.ts).
  const malformed = a.status === 400 && (body as { message?: unknown }).message === 'Malformed HTTP request';
  if (c.method === c.op.method && !malformed && policyOf(t.app.api.getOperation(c.op.operationId)).oauthErrors) {
    // The OAuth endpoints: RFC 6749 5.2's code and description beside the message, in its
    // characters (another method on their path is no route: {message} alone).
    expect(body, what).toEqual({ message: expect.any(String), error: expect.stringMatching(/^[a-z_]+$/), error_description: expect.stringMatching(/^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/) });
  } else {
    expect(body, what).toEqual({ message: expect.any(String) });
  }
  expect((body as { message: string }).message.length, what).toBeGreaterThan(0);
}

beforeAll(async () => {
  process.stdout.write(`property-based hostile requests: seed ${SEED} (FC_SEED=${SEED} replays this run)\n`);
  const generous = { points: 1_000_000, seconds: 60 };
  t = await startServer({}, { limits: { signInIp: generous, signInAccount: generous, signUpIp: generous } });
  port = Number(new URL(t.baseUrl).port);
  ({ agent } = await signedInAgent(t));
  // Something real to find: an app, a code, a game, so valid-looking ids sometimes hit.
  const user = await t.store.users.getUserByName([...agent.cookies.keys()].length ? (await (await agent.fetch('/api/account')).json() as { user: { name: string } }).user.name : '');
  const client = await makeClient(t, user!.id);
  await makeCode(t, { userId: user!.id, clientId: client.clientId });
  await agent.json('POST', '/api/games', { title: 'Hostile', url: 'https://game.example/' });
});

afterAll(async () => {
  const perOp = [...counts].map(([op, n]) => `${op} ${n}`).join(', ');
  process.stdout.write(`\nproperty-based hostile requests: ${ran} cases ran over ${counts.size} operations, 0 invariant violations (${perOp})\n`);
  await t?.close();
});

describe('hostile requests generated from openapi.yaml', () => {
  it('covers every operation of the contract', () => {
    expect(operations.length).toBeGreaterThanOrEqual(36);
    expect(new Set(operations.map((o) => o.operationId)).size).toBe(operations.length);
  });

  for (const op of operations) {
    it(`${op.operationId} (${op.method} ${op.path}): ${RUNS} cases, never a 5xx, errors are {message} 4xx, responses match the contract`, { timeout: 120_000 }, async () => {
      await assertWithSeed(
        fc.asyncProperty(caseFor(op), async (c) => {
          const answer = await send(c);
          ran += 1;
          counts.set(op.operationId, (counts.get(op.operationId) ?? 0) + 1);
          checkAnswer(c, answer);
          // Some cases sign the agent out or rotate its session: sign in again for the next ones.
          if (c.session !== 'none' && (answer.headers['set-cookie'] ?? []).some((l) => /expires=Thu, 01 Jan 1970/i.test(l))) {
            ({ agent } = await signedInAgent(t));
          }
        }),
        op.operationId,
        RUNS,
      );
    });
  }
});

describe('text PostgreSQL cannot store (found by this suite on PostgreSQL)', () => {
  it('refuses NUL and control characters in stored text with 400 on every database, and finds no app by a NUL id', async () => {
    const cases: [string, string, unknown, number, string][] = [
      ['PATCH', '/api/account', { bio: 'a\u0000b' }, 400, 'Bio must not contain NUL characters'],
      ['POST', '/api/apps', { name: 'a\u0000', redirect_uris: ['https://x.example/'] }, 400, 'App name must not contain control characters'],
      ['POST', '/api/apps', { name: 'a', redirect_uris: ['https://x.example/\u0000'] }, 400, 'Redirect URI must not contain spaces or control characters'],
      ['POST', '/api/games', { title: 't\u0000', url: 'https://g.example/' }, 400, 'Game title must not contain control characters'],
      ['POST', '/api/games', { title: 't', url: 'https://g.example/\u0000' }, 400, 'Game URL must not contain spaces or control characters'],
      ['DELETE', '/api/apps/%00', undefined, 404, 'App not found'],
      ['POST', '/api/apps/%00/secret', undefined, 404, 'App not found'],
    ];
    for (const [method, path, body, status, message] of cases) {
      const res = await agent.json(method, path, body);
      expect([method, path, res.status, await res.json()]).toEqual([method, path, status, { message }]);
    }
  });
});
