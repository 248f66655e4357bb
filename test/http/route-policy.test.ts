/**
 * Every operation of openapi.yaml, served: its CORS headers, whether the session cookie is read,
 * which request bodies are parsed, and its security-header set are what its contract entry says.
 * The expectations are read here from the raw YAML, independently of src/http/policy.ts, so a server
 * that drifts from its contract (or a policy module that misreads it) fails this table.
 */
import fs from 'node:fs';
import http from 'node:http';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, signedInAgent, startServer, type TestServer } from '../helpers.js';

type Node = Record<string, unknown>;
const doc = yaml.load(fs.readFileSync(new URL('../../openapi.yaml', import.meta.url), 'utf8')) as Node;

function deref(node: unknown): Node {
  let n = node as Node;
  while (typeof n?.$ref === 'string') {
    n = String(n.$ref)
      .slice(2)
      .split('/')
      .reduce<Node>((acc, key) => acc[key] as Node, doc);
  }
  return n;
}

interface Row {
  operationId: string;
  method: string;
  path: string;
  publicCors: boolean;
  clientCors: boolean;
  session: boolean;
  bodyTypes: string[];
  page: boolean;
  /** `x-oauth-errors: true`: errors carry `error` and `error_description` beside `message`. */
  oauthErrors: boolean;
  requiredQuery: [string, string][];
}

const rows: Row[] = Object.entries(doc.paths as Record<string, Record<string, Node>>).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => {
    const parameters = ((op.parameters ?? []) as unknown[]).map(deref);
    const example = (p: Node): string => {
      const value = p.example ?? deref(p.schema).example ?? '1';
      return typeof value === 'string' ? value : JSON.stringify(value);
    };
    const responses = Object.values(op.responses as Node).map(deref);
    return {
      operationId: String(op.operationId),
      method: method.toUpperCase(),
      path: path.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(example(parameters.find((p) => p.name === name)!))),
      publicCors: op['x-cors'] === 'public',
      clientCors: op['x-cors'] === 'client',
      session: ((op.security ?? []) as Node[]).some((r) => 'session' in r || 'csrf' in r),
      bodyTypes: Object.keys((deref(op.requestBody ?? {}).content ?? {})),
      page: responses.some((r) => 'text/html' in ((r.content ?? {}) as Node)),
      oauthErrors: op['x-oauth-errors'] === true,
      requiredQuery: parameters.filter((p) => p.in === 'query' && p.required).map((p) => [String(p.name), example(p)] as [string, string]),
    };
  }),
);

let t: TestServer;
let getSessionCalls = 0;

beforeAll(async () => {
  const generous = { points: 1_000_000, seconds: 60 };
  t = await startServer({}, { limits: { signInIp: generous, signInAccount: generous, signUpIp: generous } });
  const read = t.store.sessions.getSession.bind(t.store);
  t.store.sessions.getSession = async (...args) => {
    getSessionCalls += 1;
    return read(...args);
  };
});

afterAll(async () => {
  await t?.close();
});

const ORIGIN = 'https://elsewhere.example';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  sessionReads: number;
}

/** Sends the operation's request as a signed-in browser on another origin would, counting session reads. */
async function send(agent: Agent, row: Row, init: { contentType?: string; body?: string; method?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  const query = new URLSearchParams(row.requiredQuery).toString();
  const headers: Record<string, string> = { Origin: ORIGIN, 'X-CSRF-Token': await agent.csrf(), Cookie: agent.cookieHeader(), ...init.headers };
  if (init.contentType) headers['Content-Type'] = init.contentType;
  if (init.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(init.body));
  const before = getSessionCalls;
  const { port } = new URL(t.baseUrl);
  const answer = await new Promise<Omit<Answer, 'sessionReads'>>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: init.method ?? row.method, path: `${row.path}${query ? `?${query}` : ''}`, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (b: Buffer) => chunks.push(b));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(init.body);
  });
  return { ...answer, sessionReads: getSessionCalls - before };
}

/** A body of the given media type that parses (its content may still be refused by validation). */
function sample(type: string): string {
  if (type === 'application/json') return '{}';
  if (type === 'multipart/form-data; boundary=x') return '--x\r\nContent-Disposition: form-data; name="note"\r\n\r\nhi\r\n--x--\r\n';
  return 'a=1';
}

describe('each operation behaves as its contract entry says', () => {
  it('the table covers every operation', () => {
    expect(rows.length).toBeGreaterThanOrEqual(36);
    expect(rows.filter((r) => r.publicCors).map((r) => r.operationId).sort()).toEqual(['getAuthorizationServerMetadata', 'getGameSdk', 'getGameSdkTypes', 'getJwks', 'getOpenIdConfiguration', 'getProfilePicture', 'getUserInfo']);
    expect(rows.filter((r) => r.clientCors).map((r) => r.operationId)).toEqual(expect.arrayContaining(['exchangeToken', 'getWhois', 'revokeToken']));
  });

  for (const row of rows) {
    it(`${row.operationId} (${row.method} ${row.path}): cors ${row.publicCors ? 'public' : row.clientCors ? 'client' : 'none'}, session ${row.session ? 'read' : 'not read'}, body ${row.bodyTypes.join('+') || 'none'}, ${row.page ? 'page' : 'API'} headers`, async () => {
      const { agent } = await signedInAgent(t);
      const plain = await send(agent, row);
      const what = `${row.operationId} -> ${plain.status} ${plain.text.slice(0, 200)}`;

      // CORS, on the actual request and on a preflight. A client operation's request here has no
      // client credentials, so it is an error, which any origin may read.
      if (row.clientCors) expect(plain.status, what).toBeGreaterThanOrEqual(400);
      expect(plain.headers['access-control-allow-origin'], what).toBe(row.publicCors ? '*' : row.clientCors ? ORIGIN : undefined);
      const preflight = await send(agent, row, { method: 'OPTIONS', headers: { 'Access-Control-Request-Method': row.method } });
      expect(preflight.headers['access-control-allow-origin'], `${row.operationId} preflight`).toBe(row.publicCors ? '*' : row.clientCors ? ORIGIN : undefined);
      if (row.publicCors || row.clientCors) expect(preflight.status).toBe(204);
      if (row.clientCors) expect(String(preflight.headers['access-control-allow-methods']).split(','), `${row.operationId} preflight`).toContain(row.method);

      // The session cookie (sent on every request here) is read only where the contract names it.
      if (row.session) expect(plain.sessionReads, what).toBeGreaterThan(0);
      else {
        expect(plain.sessionReads, what).toBe(0);
        expect(plain.headers['set-cookie'], what).toBeUndefined();
      }

      // The header set.
      const csp = String(plain.headers['content-security-policy'] ?? '');
      if (row.page) expect(csp, what).toMatch(/^default-src '(self|none)'/);
      else expect(csp, what).toBe("default-src 'none';frame-ancestors 'none'");
      if (row.page) expect(csp, what).toContain("frame-ancestors 'none'");
      if (!row.page) expect(plain.headers['cross-origin-resource-policy'], what).toBe(row.publicCors ? 'cross-origin' : 'same-origin');
      expect(plain.headers['x-content-type-options'], what).toBe('nosniff');
      expect(plain.headers['referrer-policy'], what).toBe('no-referrer');

      // Bodies: each declared media type is parsed; multipart only where declared; a route that
      // declares no body ignores one, even a broken one.
      for (const type of row.bodyTypes) {
        const mediaType = type === 'multipart/form-data' ? 'multipart/form-data; boundary=x' : type;
        const sent = await send(agent, row, { contentType: mediaType, body: sample(mediaType) });
        expect(sent.status, `${row.operationId} with ${type}: ${sent.text.slice(0, 200)}`).not.toBe(415);
      }
      if (row.bodyTypes.length > 0 && !row.bodyTypes.includes('multipart/form-data')) {
        const multipart = await send(agent, row, { contentType: 'multipart/form-data; boundary=x', body: sample('multipart/form-data; boundary=x') });
        expect(multipart.status, `${row.operationId} with multipart: ${multipart.text}`).toBe(415);
        if (row.page) expect(multipart.text).toMatch(/^<!doctype html>[\s\S]*Unsupported Content-Type: multipart\/form-data/i);
        else if (row.oauthErrors) expect(JSON.parse(multipart.text)).toEqual({ message: 'Unsupported Content-Type: multipart/form-data', error: 'invalid_request', error_description: 'Unsupported Content-Type: multipart/form-data' });
        else expect(JSON.parse(multipart.text)).toEqual({ message: 'Unsupported Content-Type: multipart/form-data' });
      }
      if (row.bodyTypes.length === 0 && row.method !== 'GET') {
        const broken = await send(agent, row, { contentType: 'application/json', body: '{"broken' });
        expect(broken.status, `${row.operationId} with an undeclared broken body: ${broken.text.slice(0, 200)}`).not.toBe(400);
        expect(broken.status).not.toBe(415);
      }
      if (row.bodyTypes.length === 0 && row.method === 'GET') {
        // Same answer with or without a body (RFC 9110 9.3.1: a GET body has no meaning).
        const broken = await send(agent, row, { contentType: 'application/json', body: '{"broken' });
        expect(broken.status, row.operationId).toBe(plain.status);
      }
    });
  }
});
