/**
 * `npm run test:fuzz`: an independent contract fuzzer over every operation of openapi.yaml against
 * a real server (test/helpers.ts startServer, response validation on). The requests come from
 * openapi-fuzzer-core (npm), which shares nothing with the project's own generators
 * (test/hostile/corpus.ts). It reads Swagger 2 documents, so the OpenAPI 3 contract is handed to it
 * in that shape (parameters' schemas flattened, each request body a `body` parameter with its
 * schema under `definitions`). Each request is sent four ways: with no credentials, with a
 * signed-in session cookie and its CSRF token (header and `_csrf` field), with a valid Bearer
 * token, and with a valid client id and secret (HTTP Basic and body fields).
 *
 * Checked: no 5xx; every status declared for the operation (or by the contract's conventions:
 * 414, 431, 503; 404/405 for addresses and methods no operation has); every JSON error body
 * exactly `{message}` (`{message, error, error_description}` on the OAuth endpoints, x-oauth-errors). Exits 1 listing what broke (docs/development.md#contract-fuzzer).
 */
import { createRequire } from 'node:module';
import type { Operation } from 'openapi-backend';
import { createApi } from '../src/http/operations.js';
import { Agent, makeClient, makeToken, makeUser, startServer, type TestServer } from '../test/helpers.js';
import { operationHandlers } from '../src/handlers/index.js';

interface FuzzSpec {
  name: string;
  request: { method: string; path: string; pathParams?: Record<string, unknown>; queryParams?: Record<string, unknown>; body?: unknown };
}
const fuzzer = createRequire(import.meta.url)('openapi-fuzzer-core') as { swagger(doc: unknown): FuzzSpec[] };

type Schema = Record<string, unknown>;
const CONVENTIONS = new Set([414, 431, 503]);

/** The contract in the Swagger 2 shape openapi-fuzzer-core reads. */
function swagger2(operations: Operation[]): unknown {
  const paths: Record<string, Record<string, unknown>> = {};
  const definitions: Record<string, Schema> = {};
  for (const op of operations) {
    const parameters: Schema[] = (op.parameters ?? []).map((p) => {
      const { schema, ...rest } = p as unknown as Schema & { schema?: Schema };
      return { ...schema, ...rest };
    });
    const content = (op.requestBody as { content?: Record<string, { schema?: Schema }> } | undefined)?.content;
    const media = content && (content['application/json'] ?? content['application/x-www-form-urlencoded']);
    if (media?.schema) {
      definitions[op.operationId!] = media.schema;
      parameters.push({ name: 'body', in: 'body', schema: { $ref: `#/definitions/${op.operationId}` } });
    }
    (paths[op.path] ??= {})[op.method] = { operationId: op.operationId, parameters };
  }
  return { swagger: '2.0', basePath: '', paths, definitions };
}

const text = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v) ?? '');

interface Credentials {
  name: string;
  headers: () => Promise<Record<string, string>>;
  fields: () => Promise<Record<string, string>>;
}

async function main(): Promise<void> {
  const started = Date.now();
  const api = await createApi(operationHandlers);
  const operations = api.getOperations();
  const specs = fuzzer.swagger(swagger2(operations));
  // The fuzzer signs in once per operation: the per-address sign-in limit would stop it.
  const t: TestServer = await startServer({}, { limits: { signInIp: { points: 1_000_000, seconds: 600 } } });
  const failures = new Map<string, string>();
  let sent = 0;
  const statuses = new Map<number, number>();
  const kinds = new Map<string, number>();
  try {
    const { token } = await makeToken(t, 'userinfo email');
    const owner = await makeUser(t);
    const client = await makeClient(t, owner.id);
    const basic = `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`;
    // A session per operation: the fuzzer's own requests may end it (sign-out, sessions, deletion).
    // A session answer of 401 (or sign-out's 303) may mean the request ended it: a new one next.
    let session: { agent: Agent; csrf: string; forPath: string } | undefined;
    let stale = false;
    const sessionFor = async (key: string) => {
      if (session?.forPath !== key || stale) {
        stale = false;
        const user = await makeUser(t);
        const agent = new Agent(t);
        await agent.signIn(user);
        session = { agent, csrf: await agent.csrf(), forPath: key };
      }
      return session;
    };
    let currentKey = '';
    const credentials: Credentials[] = [
      { name: 'none', headers: async () => ({}), fields: async () => ({}) },
      {
        name: 'session',
        headers: async () => {
          const s = await sessionFor(currentKey);
          return { Cookie: s.agent.cookieHeader(), 'X-CSRF-Token': s.csrf };
        },
        fields: async () => ({ _csrf: (await sessionFor(currentKey)).csrf }),
      },
      { name: 'bearer', headers: async () => ({ Authorization: `Bearer ${token}` }), fields: async () => ({}) },
      { name: 'client', headers: async () => ({ Authorization: basic }), fields: async () => ({ client_id: client.clientId, client_secret: client.clientSecret }) },
    ];

    for (const spec of specs) {
      const { method, pathParams = {}, queryParams = {}, body } = spec.request;
      const path = spec.request.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(text(pathParams[name] ?? name)));
      const query = new URLSearchParams(Object.entries(queryParams).map(([k, v]): [string, string] => [k, text(v)])).toString();
      const target = query ? `${path}?${query}` : path;
      const operation = api.router.matchOperation({ method, path, headers: {} }, false);
      const content = (operation?.requestBody as { content?: Record<string, unknown> } | undefined)?.content ?? {};
      const json = 'application/json' in content || !('application/x-www-form-urlencoded' in content);
      currentKey = `${spec.request.method} ${spec.request.path}`;
      kinds.set(spec.name, (kinds.get(spec.name) ?? 0) + 1);
      for (const cred of credentials) {
        const headers = await cred.headers();
        let payload: string | undefined;
        if (body !== undefined) {
          const fields = await cred.fields();
          if (json) {
            payload = JSON.stringify(body !== null && typeof body === 'object' && !Array.isArray(body) ? { ...fields, ...body } : body);
            headers['Content-Type'] = 'application/json';
          } else {
            const entries: [string, unknown][] = body !== null && typeof body === 'object' && !Array.isArray(body) ? Object.entries(body) : [['value', body]];
            // The credentials' fields unless the fuzzer sends its own (a repeated one is a plain 400).
            const own = Object.entries(fields).filter(([k]) => !entries.some(([e]) => e === k));
            payload = new URLSearchParams([...own, ...entries.map(([k, v]): [string, string] => [k, text(v)])]).toString();
            headers['Content-Type'] = 'application/x-www-form-urlencoded';
          }
        }
        const res = await fetch(`${t.baseUrl}${target}`, { method: method.toUpperCase(), headers, body: payload, redirect: 'manual' });
        const answer = await res.text();
        sent++;
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (cred.name === 'session' && (res.status === 401 || res.status === 303)) stale = true;
        const where = operation ? operation.operationId! : `${method.toUpperCase()} ${path} (no operation)`;
        const declared = operation ? Object.keys(operation.responses ?? {}).map(Number) : [404, 405];
        const problems: string[] = [];
        if (res.status >= 500 && res.status !== 503) problems.push(`server error ${res.status}`);
        else if (!declared.includes(res.status) && !CONVENTIONS.has(res.status)) problems.push(`undeclared status ${res.status}`);
        if (res.status >= 400 && res.headers.get('content-type')?.startsWith('application/json')) {
          const parsed = JSON.parse(answer) as Record<string, unknown>;
          // The OAuth endpoints (x-oauth-errors) carry RFC 6749 5.2's error and description beside it.
          const oauth = operation !== undefined && (operation as { 'x-oauth-errors'?: boolean })['x-oauth-errors'] === true;
          const keys = oauth ? 'message,error,error_description' : 'message';
          if (Object.keys(parsed).join() !== keys || typeof parsed.message !== 'string') problems.push(`error body is not {${keys}}`);
        }
        for (const problem of problems) {
          const key = `${where}: ${problem}`;
          if (!failures.has(key)) failures.set(key, `${cred.name} ${method.toUpperCase()} ${target.slice(0, 200)} -> ${res.status} ${answer.slice(0, 200)}`);
        }
      }
    }
  } finally {
    await t.close();
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`contract fuzzer (openapi-fuzzer-core): ${specs.length} generated requests x 4 credentials = ${sent} sent over ${operations.length} operations in ${seconds} s`);
  console.log(`  generated: ${[...kinds].map(([k, n]) => `${k} ${n}`).join(', ')}`);
  console.log(`  answered: ${[...statuses].sort((a, b) => a[0] - b[0]).map(([k, n]) => `${k} x${n}`).join(', ')}`);
  if (failures.size === 0) {
    console.log('no server error, every status declared, every JSON error {message}');
    return;
  }
  for (const [key, example] of failures) console.error(`${key}\n    e.g. ${example}`);
  process.exitCode = 1;
}

await main();
