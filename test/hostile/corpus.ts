/**
 * The hostile-request corpus: requests generated from openapi.yaml for every operation, mostly
 * invalid (wrong types, missing, extra and repeated parameters, huge values, odd percent-encodings
 * and raw bytes, unicode, abused headers, broken and oversized bodies). Shared by the property
 * suite (test/hostile/requests.test.ts: over HTTP against the running app) and the differential
 * suite (test/http/dispatch-differential.test.ts: the fast dispatcher against openapi-backend's own
 * handleRequest).
 */
import fs from 'node:fs';
import fc from 'fast-check';
import yaml from 'js-yaml';

interface Param {
  name: string;
  in: 'query' | 'path' | 'header' | 'cookie';
  schema?: { type?: string };
}
export interface Operation {
  method: string;
  path: string;
  operationId: string;
  params: Param[];
  bodyTypes: string[];
}

type Doc = {
  paths: Record<string, Record<string, { operationId: string; parameters?: ({ $ref: string } | Param)[]; requestBody?: { content: Record<string, unknown> }; responses: Record<string, { content?: Record<string, unknown> }> }>>;
  components: { parameters: Record<string, Param> };
};
const doc = yaml.load(fs.readFileSync(new URL('../../openapi.yaml', import.meta.url), 'utf8')) as Doc;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
export const operations: Operation[] = Object.entries(doc.paths).flatMap(([p, item]) =>
  Object.entries(item)
    .filter(([m]) => METHODS.includes(m))
    .map(([m, op]) => ({
      method: m.toUpperCase(),
      path: p,
      operationId: op.operationId,
      params: (op.parameters ?? []).map((x) => ('$ref' in x ? doc.components.parameters[x.$ref.split('/').pop()!]! : x)),
      bodyTypes: Object.keys(op.requestBody?.content ?? {}),
    })),
);

/**
 * Cases per operation. The full run (`npm test`) makes 330 (over 10k requests in all); FC_RUNS
 * lowers it for the fast tier (`npm run test:fast`), which is for the inner loop, not for finding
 * rare inputs. The operations that hash a password (a new one, or the decoy hash of an unknown
 * name) get as many as the rest: the test server hashes at a low cost (test/helpers.ts).
 */
export const RUNS = runsOf(process.env.FC_RUNS, 330);
/** The differential suite compares in-process, without HTTP: it needs fewer cases per operation. */
export const DIFFERENTIAL_RUNS = Math.min(250, RUNS);

function runsOf(value: string | undefined, full: number): number {
  if (value === undefined || value === '') return full;
  const runs = Number(value);
  if (!Number.isSafeInteger(runs) || runs < 1) throw new Error(`FC_RUNS must be a positive integer, got ${JSON.stringify(value)}`);
  return runs;
}

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

export interface Case {
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
      return Buffer.alloc(size, 'a'); // oversized for some operations (body limits are derived per operation, at least 16 KiB; uploads 8 MB)
    case 4:
      return Buffer.from([0xff, 0xfe, 0x00, 0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1]); // invalid UTF-8
    default:
      return Buffer.from(`--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\n${raw}\r\n--xyz--\r\n`);
  }
}

export function caseFor(op: Operation): fc.Arbitrary<Case> {
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
    session: fc.constantFrom<Case['session']>('none', 'signed-in', 'signed-in+csrf', 'signed-in+csrf'),
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


/**
 * One seed for the whole run, printed at the start and in every failure: `FC_SEED=<n>` replays the
 * run, and `FC_PATH=<path>` (also printed by fast-check on a failure) replays exactly the shrunk
 * counterexample of one operation (select it with `-t <operationId>`). A seed that is not an
 * integer stops the run: fast-check would otherwise pick a random one and the replay would not be one.
 */
export const SEED = seedOf(process.env.FC_SEED);
const PATH = process.env.FC_PATH || undefined;

export function seedOf(value: string | undefined): number {
  if (value === undefined || value === '') return Math.floor(Math.random() * 2 ** 31);
  const seed = Number(value);
  if (!Number.isSafeInteger(seed)) throw new Error(`FC_SEED must be an integer, got ${JSON.stringify(value)}`);
  return seed;
}

function replayHint(operationId: string): string {
  return `replay: FC_SEED=${SEED} npx vitest run <this file> -t ${operationId} (add FC_PATH=<path from the report> for the exact case)`;
}

/** Runs one operation's property with the run's seed (and FC_PATH); a failure starts with how to replay it. */
export async function assertWithSeed(property: fc.IAsyncPropertyWithHooks<[Case]>, operationId: string, numRuns: number, path = PATH): Promise<void> {
  await fc.assert(property, { numRuns, seed: SEED, path }).catch((err: unknown) => {
    throw new Error(`${replayHint(operationId)}\n${err instanceof Error ? err.message : String(err)}`);
  });
}
