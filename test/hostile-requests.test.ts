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
import fs from 'node:fs';
import fc from 'fast-check';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPageOperation } from '../src/api.js';
import { Agent, makeClient, makeCode, signedInAgent, startServer, type TestServer } from './helpers.js';

interface Param {
  name: string;
  in: 'query' | 'path' | 'header' | 'cookie';
  schema?: { type?: string };
}
interface Operation {
  method: string;
  path: string;
  operationId: string;
  params: Param[];
  bodyTypes: string[];
  page: boolean;
}

type Doc = {
  paths: Record<string, Record<string, { operationId: string; parameters?: ({ $ref: string } | Param)[]; requestBody?: { content: Record<string, unknown> }; responses: Record<string, { content?: Record<string, unknown> }> }>>;
  components: { parameters: Record<string, Param> };
};
const doc = yaml.load(fs.readFileSync(new URL('../openapi.yaml', import.meta.url), 'utf8')) as Doc;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const operations: Operation[] = Object.entries(doc.paths).flatMap(([p, item]) =>
  Object.entries(item)
    .filter(([m]) => METHODS.includes(m))
    .map(([m, op]) => ({
      method: m.toUpperCase(),
      path: p,
      operationId: op.operationId,
      params: (op.parameters ?? []).map((x) => ('$ref' in x ? doc.components.parameters[x.$ref.split('/').pop()!]! : x)),
      bodyTypes: Object.keys(op.requestBody?.content ?? {}),
      page: false, // set in beforeAll from the app's dereferenced contract (isPageOperation)
    })),
);

/** Operations that hash a password (scrypt, ~90 ms) on most inputs get fewer runs; the total stays above 10k. */
const SLOW = new Set(['postSignIn', 'postSignUp']);
const RUNS = 330;
const SLOW_RUNS = 60;

// ---- arbitraries ---------------------------------------------------------------------------

const nasty = fc.constantFrom(
  '', ' ', '0', '-1', '1.5', '1e3', '0x10', 'NaN', 'Infinity', 'null', 'true', '[]', '{}', '9'.repeat(400),
  '9007199254740993', '2147483648', '../../etc/passwd', '..%2f..%2f', '%00', '\u0000', '<script>alert(1)</script>',
  "' or 1=1 --", 'ｄｅｍｏ', '💥🔥', '\u202e', 'é', 'large', 'medium', '1-1.webp', '1.webp', 'userinfo email', 'S256',
  'authorization_code', 'https://client.example/callback', 'x'.repeat(5000),
);
const text = fc.oneof(nasty, fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 20 }), fc.integer().map(String));
/** Any value a parameter might carry, wrong types included. */
const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    text,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 8 }), tie('v'), { maxKeys: 3 }),
  ),
})).v;

/** How a string lands in a URL: properly encoded, raw (Latin-1 bytes as Node sends them), or broken escapes. */
function urlPart(s: string, how: number): string {
  if (how === 0) return encodeURIComponent(s);
  if (how === 1) return [...s].map((c) => (c.charCodeAt(0) > 0x20 && c.charCodeAt(0) <= 0xff && !'#?/ '.includes(c) ? c : encodeURIComponent(c))).join('');
  if (how === 2) return `${encodeURIComponent(s)}%${s.length % 2 ? 'zz' : 'c0%af'}`;
  return encodeURIComponent(s).replace(/%/g, '%25');
}

const headerValue = fc.oneof(text, fc.constantFrom('Bearer', 'Bearer ', 'Basic', 'Basic !!!', 'Basic Og==', 'Basic ' + Buffer.from('a:b').toString('base64'), 'Bearer ' + 'A'.repeat(43), 'Digest x', 'gzip', '*/*', 'W/"x"', '"default-v1-1-large"'))
  // Node refuses to send control characters in header values; everything else goes.
  .map((s) => String(s).replace(/[^\t\x20-\x7e\x80-\xff]/g, '?').slice(0, 4000));

const headerName = fc.constantFrom('Authorization', 'Cookie', 'X-CSRF-Token', 'Origin', 'If-None-Match', 'Accept', 'Accept-Encoding', 'X-Forwarded-For', 'Host', 'Referer', 'Content-Language', 'Range', 'X-Custom');

const contentType = fc.constantFrom(
  undefined, 'application/json', 'application/json; charset=utf-8', 'application/json; charset=latin1', 'application/json; charset=bogus',
  'application/x-www-form-urlencoded', 'text/plain', 'text/html', 'multipart/form-data', 'multipart/form-data; boundary=xyz',
  'application/xml', 'image/png', 'application/octet-stream', '*/*', ';;;', 'application/json; charset=utf-16',
);

interface Case {
  op: Operation;
  method: string;
  path: string;
  query: [string, string][];
  headers: [string, string][];
  contentType: string | undefined;
  body: Buffer | undefined;
  session: 'none' | 'signed-in' | 'signed-in+csrf';
}

function bodyFor(kind: number, fields: [string, unknown][], raw: string, size: number): Buffer {
  switch (kind) {
    case 0:
      return Buffer.from(JSON.stringify(Object.fromEntries(fields)));
    case 1:
      return Buffer.from(fields.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v))}`).join('&'));
    case 2:
      return Buffer.from(raw); // broken JSON, stray bytes
    case 3:
      return Buffer.alloc(size, 'a'); // oversized (limit 16 KB, uploads 8 MB)
    case 4:
      return Buffer.from([0xff, 0xfe, 0x00, 0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1]); // invalid UTF-8
    default:
      return Buffer.from(`--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\n${raw}\r\n--xyz--\r\n`);
  }
}

function caseFor(op: Operation): fc.Arbitrary<Case> {
  const known = op.params.filter((p) => p.in === 'query').map((p) => p.name);
  const fieldNames = fc.constantFrom(
    ...known, 'grant_type', 'code', 'client_id', 'client_secret', 'redirect_uri', 'code_verifier', 'bio', 'equippedFlair', 'name',
    'redirect_uris', 'title', 'url', 'scopes', 'email', 'password', '_csrf', 'action', '__proto__', 'constructor', 'x',
  );
  const pathParams = op.params.filter((p) => p.in === 'path');
  return fc.record({
    method: fc.oneof({ weight: 9, arbitrary: fc.constant(op.method) }, { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'PROPFIND') }),
    pathValues: fc.array(fc.tuple(text, fc.nat(3)), { minLength: pathParams.length, maxLength: pathParams.length }),
    query: fc.array(fc.tuple(fieldNames, text.map(String), fc.nat(3)), { maxLength: 5 }),
    headers: fc.array(fc.tuple(headerName, headerValue), { maxLength: 4 }),
    contentType: op.bodyTypes.length ? fc.oneof(fc.constantFrom(...op.bodyTypes), contentType) : contentType,
    bodyKind: fc.option(fc.nat(5), { freq: 4 }),
    fields: fc.array(fc.tuple(fieldNames, value), { maxLength: 6 }),
    raw: fc.oneof(fc.string({ maxLength: 200 }), fc.constantFrom('{', '{"a":', '[1,2', '{"bio":"\\ud800"}', 'a=1&a=2', 'code=%zz', '\u0000\u0001')),
    size: fc.integer({ min: 16 * 1024 - 2, max: 64 * 1024 }),
    session: fc.constantFrom('none', 'signed-in', 'signed-in+csrf', 'signed-in+csrf') as fc.Arbitrary<Case['session']>,
  }).map((r) => {
    let i = 0;
    const path = op.path.replace(/\{[^}]+\}/g, () => {
      const [v, how] = r.pathValues[i++]!;
      const s = urlPart(String(v), how);
      return s === '' ? '%20' : s;
    });
    return {
      op,
      method: r.method,
      path,
      query: r.query.map(([k, v, how]) => [k, urlPart(v, how)] as [string, string]),
      headers: r.headers,
      contentType: r.contentType,
      body: r.bodyKind === null ? undefined : bodyFor(r.bodyKind, r.fields, r.raw, r.size),
      session: r.session,
    };
  });
}

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
  if (c.op.page && type.startsWith('text/html')) {
    expect(a.body.toString(), what).toMatch(/^<!doctype html>/i);
    return;
  }
  expect(type, what).toBe('application/json; charset=utf-8');
  const body = JSON.parse(a.body.toString()) as unknown;
  expect(body, what).toEqual({ message: expect.any(String) });
  expect((body as { message: string }).message.length, what).toBeGreaterThan(0);
}

beforeAll(async () => {
  const generous = { points: 1_000_000, seconds: 60 };
  t = await startServer({}, { limits: { signInIp: generous, signInAccount: generous, signUpIp: generous } });
  port = Number(new URL(t.baseUrl).port);
  for (const op of operations) op.page = isPageOperation(t.app.api.getOperation(op.operationId)!);
  ({ agent } = await signedInAgent(t));
  // Something real to find: an app, a code, a game, so valid-looking ids sometimes hit.
  const user = await t.store.getUserByName([...agent.cookies.keys()].length ? (await (await agent.fetch('/api/account')).json() as { user: { name: string } }).user.name : '');
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
    const numRuns = SLOW.has(op.operationId) ? SLOW_RUNS : RUNS;
    it(`${op.operationId} (${op.method} ${op.path}): ${numRuns} cases, never a 5xx, errors are {message} 4xx, responses match the contract`, { timeout: 120_000 }, async () => {
      await fc.assert(
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
        { numRuns, seed: Number(process.env.FC_SEED ?? Date.now() % 2 ** 31) },
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
