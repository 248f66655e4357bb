/**
 * Request size limits agree with the contract (docs/decisions.md#request-size-limits): no request
 * the schema allows is refused for its size, over-long targets are 414 and over-large headers 431
 * (both `{message}`), a signed-out person following the longest authorization request comes back
 * to it after signing in, an unusable `return_to` is ignored, and form parameters an operation
 * does not declare are ignored even repeated (RFC 6749 3.2) while declared ones given twice are 400.
 */
import http from 'node:http';
import net from 'node:net';
import type { Operation } from 'openapi-backend';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../../src/http/operations.js';
import type { Schema } from '../../src/http/body-limits.js';
import { Agent, makeClient, makeUser, TEST_PASSWORD, tokenRequest, startServer, type TestServer } from '../helpers.js';
import { operationHandlers } from '../../src/handlers/index.js';

let t: TestServer;
let port: number;
beforeAll(async () => {
  t = await startServer();
  port = Number(new URL(t.baseUrl).port);
});
afterAll(() => t.close());

/** A raw request (fetch refuses nothing, but this keeps the bytes exactly as written). */
interface RawAnswer {
  status: number;
  type: string;
  body: string;
  location?: string;
}

/** Cookies an answer sets, into the agent (as Agent.fetch does). */
const cookiesFrom: { agent?: Agent } = {};

function raw(path: string, headers: Record<string, string> = {}, body?: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const method = body === undefined ? 'GET' : 'POST';
    const req = http.request({ host: '127.0.0.1', port, method, path, headers, maxHeaderSize: 1 << 20 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        for (const line of res.headers['set-cookie'] ?? []) {
          const [pair] = line.split(';');
          const eq = pair!.indexOf('=');
          cookiesFrom.agent?.cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
        }
        const answer = { status: res.statusCode!, type: String(res.headers['content-type']), body: Buffer.concat(chunks).toString() };
        resolve(res.headers.location === undefined ? answer : { ...answer, location: res.headers.location });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** One write of raw bytes; resolves with the whole answer. */
function rawPacket(bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.on('error', reject);
  });
}

// A character of 4 UTF-8 bytes: the worst case for every encoding (12 bytes percent-encoded, 12
// as a JSON surrogate pair escaped).
const WIDE = '\u{1F600}';
const wide = (n: number) => WIDE.repeat(n);

describe('request target and headers', () => {
  it('a long but valid query is served; a target over 112 KiB is 414, request line and headers over 128 KiB together 431, both {message}', async () => {
    const long = await raw(`/signin?return_to=${'a'.repeat(100_000)}`);
    expect(long.status).toBe(200);
    // A target over 112 KiB in a head that fits Node's 128 KiB: refused in the app.
    expect(await raw(`/signin?return_to=${'a'.repeat(115_000)}`)).toEqual({
      status: 414,
      type: 'application/json; charset=utf-8',
      body: '{"message":"Request URI is too long"}',
    });
    // A head over 128 KiB, whichever part is long: Node's parser refuses it, answered as {message}.
    expect(await rawPacket(`GET /signin?return_to=${'a'.repeat(140_000)} HTTP/1.1\r\nHost: x\r\n\r\n`)).toMatch(
      /^HTTP\/1\.1 431 Request Header Fields Too Large\r\n[^]*\r\n\r\n\{"message":"Request headers are too large"\}$/,
    );
    expect((await raw('/signin', { 'X-Padding': 'a'.repeat(100_000) })).status).toBe(200);
    for (const size of [140_000, 400_000]) {
      expect(await raw('/signin', { 'X-Padding': 'a'.repeat(size) })).toEqual({
        status: 431,
        type: 'application/json; charset=utf-8',
        body: '{"message":"Request headers are too large"}',
      });
    }
  });
});

describe('return_to', () => {
  it('GET /signin and /signup ignore an unusable return_to (too long or not a path) instead of a 400', async () => {
    for (const page of ['/signin', '/signup']) {
      for (const returnTo of [`/${'a'.repeat(70_000)}`, 'https://evil.example/']) {
        const res = await fetch(`${t.baseUrl}${page}?return_to=${encodeURIComponent(returnTo)}`);
        const html = await res.text();
        expect(res.status).toBe(200);
        expect(html).not.toContain('name="return_to"');
      }
    }
  });

  it('a signed-out person following the longest authorization request signs in and comes back to it', async () => {
    const owner = await makeUser(t);
    const client = await makeClient(t, owner.id);
    const user = await makeUser(t);
    // Every declared parameter at its maxLength in 4-byte characters, and an undeclared one that
    // makes the request longer than return_to may be (it is left out of the way back).
    const params = {
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      scope: 'userinfo',
      state: wide(1024),
      nonce: wide(512),
      acr_values: wide(64),
      login_hint: 'x'.repeat(60_000),
    };
    const authorize = `/oauth?${new URLSearchParams(params)}`;
    // fetch refuses answers with over 16 KiB of headers; a browser follows this redirect.
    const first = await raw(authorize);
    expect(first.status).toBe(302);
    const signIn = first.location!;
    expect(signIn.length).toBeGreaterThan(30_000);
    const agent = new Agent(t);
    expect(signIn.startsWith('/signin?return_to=')).toBe(true);
    const returnTo = new URL(signIn, t.baseUrl).searchParams.get('return_to')!;
    const { login_hint: _dropped, ...declared } = params;
    expect(returnTo).toBe(`/oauth?${new URLSearchParams(declared)}`);

    cookiesFrom.agent = agent;
    const page = await raw(signIn, { Cookie: agent.cookieHeader() });
    const html = page.body;
    expect(page.status).toBe(200);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(html)![1]!;
    expect(html).toContain('name="return_to"');
    const signedIn = await raw(
      '/signin',
      { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: agent.cookieHeader() },
      new URLSearchParams({ name: user.name, password: TEST_PASSWORD, return_to: returnTo, _csrf: csrf }).toString(),
    );
    cookiesFrom.agent = undefined;
    expect([signedIn.status, signedIn.location]).toEqual([303, returnTo]);
    const consent = await raw(returnTo, { Cookie: agent.cookieHeader() });
    const consentPage = consent.body;
    expect(consent.status).toBe(200);
    expect(consentPage).toContain('<li data-scope="userinfo">');
    expect(consentPage).toContain(`name="state" value="${wide(1024)}"`);
  });
});

// ---- bodies ------------------------------------------------------------------------------------

/** The largest value the schema allows, every string at maxLength in 4-byte characters. */
function largest(schema: Schema): unknown {
  const branches = schema.oneOf ?? schema.anyOf;
  if (branches) return branches.map(largest).sort((a, b) => JSON.stringify(b).length - JSON.stringify(a).length)[0];
  if (schema.allOf) return Object.assign({}, ...schema.allOf.map(largest));
  if (schema.enum) return [...schema.enum].sort((a, b) => String(b).length - String(a).length)[0];
  if (schema.properties) return Object.fromEntries(Object.entries(schema.properties).map(([k, s]) => [k, largest(s)]));
  if (schema.type === 'array') return Array.from({ length: schema.maxItems ?? 1 }, () => largest(schema.items ?? {}));
  if (schema.type === 'integer' || schema.type === 'number') return Number.MAX_SAFE_INTEGER;
  if (schema.type === 'boolean') return false;
  return wide(schema.maxLength ?? 64);
}

/** JSON with every non-ASCII character escaped (`\uD83D\uDE00`: 12 bytes each). */
const escapedJson = (value: unknown) => JSON.stringify(value).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

const bodyOperations = async () => {
  const api = await createApi(operationHandlers);
  const out: { operation: Operation; type: string; body: string }[] = [];
  for (const operation of api.getOperations()) {
    const content = (operation.requestBody as { content?: Record<string, { schema?: Schema }> } | undefined)?.content ?? {};
    for (const [type, media] of Object.entries(content)) {
      if (type === 'multipart/form-data' || !media.schema) continue;
      const value = largest(media.schema);
      const body =
        type === 'application/json'
          ? escapedJson(value)
          : typeof value === 'string'
            ? value
            : new URLSearchParams(Object.entries(value as object).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)])).toString();
      out.push({ operation, type, body });
    }
  }
  return out;
};

describe('body limits', () => {
  it('the largest body the schema allows is never refused for its size, on every JSON and form operation', async () => {
    const cases = await bodyOperations();
    expect(cases.length).toBeGreaterThan(30);
    const refused: string[] = [];
    for (const { operation, type, body } of cases) {
      const path = operation.path.replace(/\{[^}]+\}/g, '1');
      const res = await fetch(`${t.baseUrl}${path}`, { method: operation.method.toUpperCase(), headers: { 'Content-Type': type }, body });
      await res.arrayBuffer();
      if (res.status === 413 || res.status >= 500) refused.push(`${operation.operationId} ${type} (${body.length} bytes): ${res.status}`);
    }
    expect(refused).toEqual([]);
  });

  it('registerApp with 10 redirect URIs of 2,048 characters is not refused for size; a body past the limit is 413', async () => {
    const owner = await makeUser(t);
    const agent = new Agent(t);
    await agent.signIn(owner);
    const uris = Array.from({ length: 10 }, (_, i) => `https://app.example/${i}/${'a'.repeat(2048 - 23)}`);
    const res = await agent.json('POST', '/api/apps', { name: 'Long', redirect_uris: uris });
    expect(res.status).toBe(201);
    const tooLarge = await agent.json('POST', '/api/apps', { name: 'Long', redirect_uris: uris, pad: 'a'.repeat(2_000_000) });
    expect([tooLarge.status, await tooLarge.json()]).toEqual([413, { message: 'Request body is too large' }]);
  });
});

// ---- repeated form parameters --------------------------------------------------------------------

describe('form parameters', () => {
  it('the token endpoint ignores undeclared parameters, repeated or not, and refuses a declared one given twice', async () => {
    const owner = await makeUser(t);
    const client = await makeClient(t, owner.id);
    const base = { grant_type: 'authorization_code', code: 'no-such-code', client_id: client.clientId, client_secret: client.clientSecret };
    const plain = await tokenRequest(t, base);
    const plainBody = await plain.json();
    const send = (body: string) =>
      fetch(`${t.baseUrl}/api/oauth/token`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body });
    const withUtm = await send(`${new URLSearchParams(base)}&utm=1&utm=2&other=x`);
    expect([withUtm.status, await withUtm.json()]).toEqual([plain.status, plainBody]);
    expect(plain.status).toBe(400);
    const twice = await send(`${new URLSearchParams(base)}&code=again`);
    expect([twice.status, await twice.json()]).toEqual([400, { message: 'Parameter code is repeated', error: 'invalid_request', error_description: 'Parameter code is repeated' }]);
  });

  it('a page form ignores undeclared parameters, repeated or not; sign-out answers its declared 400 for a repeated _csrf', async () => {
    const user = await makeUser(t);
    const agent = new Agent(t);
    const csrf = await agent.csrf();
    const post = (path: string, body: string) =>
      agent.fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body });
    const signIn = await post('/signin', `${new URLSearchParams({ name: user.name, password: TEST_PASSWORD, _csrf: csrf })}&utm=a&utm=b`);
    expect([signIn.status, signIn.headers.get('location')]).toEqual([303, '/account']);
    const csrfNow = await agent.csrf();
    const twice = await post('/signout', `_csrf=${csrfNow}&_csrf=${csrfNow}`);
    expect(twice.status).toBe(400);
    expect(await twice.text()).toContain('Parameter _csrf is repeated');
    const signOut = await post('/signout', `_csrf=${csrfNow}&utm=1&utm=2`);
    expect([signOut.status, signOut.headers.get('location')]).toEqual([303, '/']);
  });
});
