/**
 * Test harness: the real app in-process on port 0, over a fresh database and picture folder.
 * The database is a SQLite file, or with TEST_DATABASE=postgres a new PostgreSQL database on the
 * server TEST_POSTGRES_URL names (dropped again on close).
 */
import { randomBytes, scryptSync } from 'node:crypto';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createApp, type App, type AppOptions } from '../src/app.js';
import { listen } from '../src/http/client-errors.js';
import { loadConfig, type Config } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { registerOAuthApp } from '../src/oauth/clients.js';
import { issueCode, type CodeRequest } from '../src/oauth/codes.js';
import type { KnexStore } from '../src/store/knex-store.js';
import { openStoreAt } from '../src/store/open.js';
import { PictureFiles } from '../src/pictures/pictures.js';
import { SIZE_NAMES, type Size } from '../src/pictures/images.js';
import type { UserRecord } from '../src/domain/users.js';
import type { EmailLinkPurpose } from '../src/domain/email-links.js';
import { hashSecret } from '../src/security/secrets.js';
import { migratedDatabase, tempDir } from './databases.js';

export { freshDatabase, tempDir, TEST_DATABASE, type TestDatabase } from './databases.js';

/** A clock the test moves by hand; starts at the real time. */
export class TestClock {
  t = Date.now();
  now = (): number => this.t;
  advance(ms: number): void {
    this.t += ms;
  }
}

export interface TestServer {
  baseUrl: string;
  app: App;
  store: KnexStore;
  config: Config;
  clock: TestClock;
  dir: string;
  close(): Promise<void>;
}

/** Starts a fresh service: new database, new picture folder, response validation on; on `port` when given (default: a free one). */
export async function startServer(
  env: NodeJS.ProcessEnv = {},
  { port: listenPort = 0, ...options }: Partial<Pick<AppOptions, 'limits' | 'logger' | 'metrics' | 'passwordHashing' | 'recoveryCodeHashing'>> & { port?: number } = {},
): Promise<TestServer> {
  const dir = tempDir();
  const db = env.DATABASE_URL ? undefined : await migratedDatabase(dir);
  const config = loadConfig({
    DATABASE_URL: db?.url,
    PICTURES_DIR: path.join(dir, 'pictures'),
    // Each test server's mail outbox is its own (the default beside the database would be ./data
    // on PostgreSQL, shared by every run).
    OUTBOX_DIR: path.join(dir, 'outbox'),
    LOG_LEVEL: 'silent',
    PORT: '0',
    ...env,
  });
  const store = openStoreAt(config.databaseUrl);
  await store.migrate();
  const clock = new TestClock();
  const app = await createApp({ config, store, logger: createLogger(config.logLevel), now: clock.now, validateResponses: true, passwordHashing: TEST_HASHING, recoveryCodeHashing: TEST_HASHING, ...options });
  const server = listen(app.koa, listenPort, '127.0.0.1');
  // fetch and the server share this process: after a long synchronous stretch (another server
  // starting under load) both idle timers are overdue at once, and the server's 5 s default could
  // close a kept-alive connection as fetch reuses it (ECONNRESET). Longer than any test, it leaves
  // closing idle connections to fetch.
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    app,
    store,
    config,
    clock,
    dir,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await store.close();
      await db?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

let counter = 0;

/** The password of every user makeUser creates. */
export const TEST_PASSWORD = 'test-password-1';

/**
 * The cost a test server hashes new passwords (sign-up, change, reset) and new recovery codes at:
 * scrypt N=2^10, 32 and 16 times cheaper than the service's PASSWORD_HASHING and
 * RECOVERY_CODE_HASHING, which most of the fast tier's time went into. Verifying still runs the
 * real scrypt with a stored hash's own parameters. A suite whose subject is the cost passes the
 * service's own (`passwordHashing: PASSWORD_HASHING` in test/accounts/sign-up-and-sign-in.test.ts;
 * recovery codes in test/accounts/second-factor-attacks.test.ts).
 */
const TEST_HASHING = { N: 1 << 10, r: 8, p: 1 };
/**
 * TEST_PASSWORD's stored hash, made once per test process at TEST_HASHING's cost. A stored hash
 * carries its own parameters and sign-in verifies with them, so every sign-in of a makeUser user
 * still runs the real verifyPassword, about 30 times faster than at the service's cost.
 */
const testPasswordHash: string = (() => {
  const salt = randomBytes(16);
  const key = scryptSync(TEST_PASSWORD.normalize('NFKC'), salt, 32, TEST_HASHING);
  return ['scrypt', TEST_HASHING.N, TEST_HASHING.r, TEST_HASHING.p, salt.toString('base64url'), key.toString('base64url')].join('$');
})();

/**
 * Creates a user with a unique name and the password TEST_PASSWORD, its address verified (as the
 * operator CLI does) unless `verified: false`.
 */
export async function makeUser(t: TestServer, name?: string, options: { verified?: boolean } = {}): Promise<UserRecord> {
  const n = name ?? `user_${process.pid}_${++counter}`;
  const emailVerifiedAt = options.verified === false ? null : t.clock.now();
  return t.store.users.createUser({ name: n, email: `${n.toLowerCase()}@example.com`, passwordHash: testPasswordHash, emailVerifiedAt }, t.clock.now());
}

export interface TestClient {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  ownerId: number;
}

export async function makeClient(t: TestServer, ownerId: number, redirectUris = ['https://client.example/callback']): Promise<TestClient> {
  const { app, clientSecret } = await registerOAuthApp({ store: t.store, now: t.clock.now }, { ownerId, name: 'Test App', redirectUris });
  return { clientId: app.clientId, clientSecret, redirectUri: redirectUris[0]!, ownerId };
}

export async function makeCode(t: TestServer, req: Partial<CodeRequest> & Pick<CodeRequest, 'userId' | 'clientId'>): Promise<string> {
  const { code } = await issueCode(
    { store: t.store, now: t.clock.now },
    { scope: 'userinfo', redirectUri: null, codeChallenge: null, ...req },
  );
  return code;
}

/**
 * The body of a token, revocation or introspection error: the seed's `message`, and RFC 6749 5.2's
 * `error` and `error_description` beside it (`description` when it differs from the message).
 */
export function oauthErrorBody(error: string, message: string, description = message): { message: string; error: string; error_description: string } {
  return { message, error, error_description: description };
}

/** Keeps the cookies an answer sets in `jar`, as a browser does (an emptied or expired one goes). */
export function keepCookies(jar: Map<string, string>, res: Response): void {
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const eq = pair!.indexOf('=');
    const name = pair!.slice(0, eq);
    const value = pair!.slice(eq + 1);
    if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) jar.delete(name);
    else jar.set(name, value);
  }
}

/** POSTs a URL-encoded token request. */
export function tokenRequest(t: TestServer, params: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${t.baseUrl}/api/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(params).toString(),
  });
}

/** A user, an app and a token with the given scopes, through the real token endpoint. */
export async function makeToken(t: TestServer, scope = 'userinfo'): Promise<{ user: UserRecord; client: TestClient; token: string }> {
  const user = await makeUser(t);
  const client = await makeClient(t, user.id);
  const code = await makeCode(t, { userId: user.id, clientId: client.clientId, scope });
  const res = await tokenRequest(t, { grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: client.clientSecret });
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { access_token: string };
  return { user, client, token: body.access_token };
}

export const fixturesDir = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures');

/**
 * A browser-like HTTP client for one session: keeps cookies, never follows redirects, and sends
 * the session's CSRF token with state-changing JSON calls.
 */
export class Agent {
  readonly cookies = new Map<string, string>();
  constructor(readonly t: TestServer) {}

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async fetch(pathAndQuery: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0 && !headers.has('Cookie')) headers.set('Cookie', this.cookieHeader());
    const res = await fetch(`${this.t.baseUrl}${pathAndQuery}`, { ...init, headers, redirect: 'manual' });
    keepCookies(this.cookies, res);
    return res;
  }

  /** The session's CSRF token (for a visitor, from the signed idp.csrf cookie it is given). */
  async csrf(): Promise<string> {
    const res = await this.fetch('/api/session');
    return ((await res.json()) as { csrf_token: string }).csrf_token;
  }

  /** POSTs an HTML form with the session's CSRF token (unless `_csrf` is given). */
  async form(path: string, fields: Record<string, string>): Promise<Response> {
    const body = new URLSearchParams({ _csrf: await this.csrf(), ...fields });
    return this.fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: body.toString() });
  }

  /** A JSON call with the X-CSRF-Token header. */
  async json(method: string, path: string, body?: unknown): Promise<Response> {
    const headers: Record<string, string> = { 'X-CSRF-Token': await this.csrf() };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    return this.fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  }

  async signIn(user: Pick<UserRecord, 'name'>, password = TEST_PASSWORD): Promise<void> {
    const res = await this.form('/signin', { name: user.name, password });
    if (res.status !== 303) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
  }
}

/** A new user, signed in on a new Agent. */
export async function signedInAgent(t: TestServer, name?: string): Promise<{ agent: Agent; user: UserRecord }> {
  const user = await makeUser(t, name);
  const agent = new Agent(t);
  await agent.signIn(user);
  return { agent, user };
}

/**
 * What the server's picture store holds, past its cache: on SQLite every file under PICTURES_DIR
 * ("<size>/<name>", temporary files included), on PostgreSQL every row of `pictures` in the same
 * shape ("<size>/<id>-<ts>.webp"); only `userId`'s when given.
 */
export async function storedPictures(t: TestServer, userId?: number): Promise<string[]> {
  const pictures = t.app.deps.pictures;
  if (pictures instanceof PictureFiles) {
    const out: string[] = [];
    for (const size of SIZE_NAMES) {
      const dir = path.join(pictures.dir, size);
      if (!fs.existsSync(dir)) continue;
      for (const name of fs.readdirSync(dir)) {
        if (userId === undefined || name.startsWith(`${userId}-`) || name.startsWith(`.${userId}-`)) out.push(`${size}/${name}`);
      }
    }
    return out.sort();
  }
  const query = t.store.knex('pictures').select('user_id', 'ts', 'size');
  if (userId !== undefined) query.where({ user_id: userId });
  const rows = (await query) as { user_id: number; ts: string | number; size: string }[];
  return rows.map((r) => `${r.size}/${r.user_id}-${r.ts}.webp`).sort();
}

/** The stored bytes of one picture, past the cache (a file on SQLite, a row on PostgreSQL). */
export async function storedPicture(t: TestServer, size: Size, userId: number, ts: number): Promise<Buffer | undefined> {
  const pictures = t.app.deps.pictures;
  if (pictures instanceof PictureFiles) {
    const file = pictures.path(size, userId, ts);
    return fs.existsSync(file) ? fs.readFileSync(file) : undefined;
  }
  return t.store.pictures.getPicture(userId, ts, size);
}

/** A mail link of `purpose` for user `userId`, stored as the service stores the ones it mails (an hour to live); its token. */
export async function makeEmailLink(t: TestServer, userId: number, purpose: EmailLinkPurpose, email: string | null): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  const now = t.clock.now();
  await t.store.emailLinks.createEmailLink({ tokenHash: hashSecret(token), userId, purpose, email, expiresAt: now + 3_600_000, usedAt: null, createdAt: now });
  return token;
}
