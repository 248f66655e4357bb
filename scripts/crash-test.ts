/**
 * Crash test: runs the real service process (src/server.ts on a SQLite file) under mixed write load
 * (authorization-code exchanges, picture uploads), kills it with SIGKILL at random moments, restarts
 * it, and checks what must survive:
 *   - every token the client saw issued still works (whois 200) until it expires;
 *   - every acknowledged picture change is still there (pfpTimestamp never below the last one seen);
 *   - no pfpTimestamp without its three files, and no other picture file of the user (orphans left
 *     by a kill are swept at start: PICTURE_SWEEP_AGE_SECONDS=0, safe because this is the only writer);
 *   - the database opens and `PRAGMA integrity_check` is ok after every kill.
 * Usage: npm run test:crash -- [--kills 20] [--keep]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { hashPassword } from '../src/accounts/passwords.js';
import { registerOAuthApp } from '../src/oauth/clients.js';
import { issueCode } from '../src/oauth/codes.js';
import { SIZE_NAMES } from '../src/pictures/images.js';
import { openStoreAt } from '../src/store/open.js';
import { spawnService, type SpawnedService } from '../test/spawn-service.js';

const args = process.argv.slice(2);
const KILLS = Number(args[args.indexOf('--kills') + 1] ?? 20) || 20;
const KEEP = args.includes('--keep');
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'idp-crash-'));
const dbFile = path.join(dir, 'service.sqlite');
const picturesDir = path.join(dir, 'pictures');
const fixtures = ['photo.jpg', 'transparent.png', 'animated.gif'].map((f) => fs.readFileSync(path.join(root, 'test', 'fixtures', f)));

const failures: string[] = [];
function check(ok: boolean, what: string): void {
  if (!ok) {
    failures.push(what);
    process.stderr.write(`INVARIANT BROKEN: ${what}\n`);
  }
}

let base = '';

async function startService(): Promise<SpawnedService> {
  const service = await spawnService({
    env: {
      DATABASE_URL: dbFile,
      PICTURES_DIR: picturesDir,
      DEMO_DATA: 'false',
      LOG_LEVEL: 'warn',
      SESSION_SECRET: 'crash-test-session-secret-0123456789abcdef',
      PICTURE_SWEEP_AGE_SECONDS: '0',
    },
  });
  base = service.url;
  return service;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Seen {
  token: string;
  expiresAt: number;
}

async function main(): Promise<void> {
  const started = Date.now();
  // Set up once, through the store as the operator CLI would: a user and an app.
  const store = openStoreAt(dbFile);
  await store.migrate();
  const user = await store.users.createUser({ name: 'crash', email: 'crash@example.com', passwordHash: await hashPassword('crash-password') }, Date.now());
  const { app, clientSecret } = await registerOAuthApp({ store, now: Date.now }, { ownerId: user.id, name: 'Crash App', redirectUris: ['https://crash.example/cb'] });

  let child = await startService();
  // One session for the whole run: sessions live in the database and the key is fixed.
  const sessionRes = await fetch(`${base}/api/session`);
  let cookie = sessionRes.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const csrf0 = ((await sessionRes.json()) as { csrf_token: string }).csrf_token;
  const signIn = await fetch(`${base}/signin`, {
    method: 'POST',
    redirect: 'manual',
    headers: { Cookie: cookie, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf0, name: 'crash', password: 'crash-password' }).toString(),
  });
  if (signIn.status !== 303) throw new Error(`sign-in failed: ${signIn.status}`);
  const fresh = signIn.headers.getSetCookie().map((c) => c.split(';')[0]);
  if (fresh.length) cookie = fresh.join('; ');
  const csrf = ((await (await fetch(`${base}/api/session`, { headers: { Cookie: cookie } })).json()) as { csrf_token: string }).csrf_token;

  const tokens: Seen[] = [];
  let lastAckedPicture = 0;
  let exchanges = 0;
  let uploads = 0;
  let refused = 0;
  let orphansAfterKill = 0;
  let verifiedTokens = 0;
  let checkedUpTo = 0;

  for (let kill = 1; kill <= KILLS; kill++) {
    let running = true;
    const tokenWorker = async () => {
      while (running) {
        try {
          const { code } = await issueCode({ store, now: Date.now }, { userId: user.id, clientId: app.clientId, scope: 'userinfo', redirectUri: null, codeChallenge: null });
          const res = await fetch(`${base}/api/oauth/token`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ grant_type: 'authorization_code', code, client_id: app.clientId, client_secret: clientSecret }).toString(),
          });
          if (res.status === 200) {
            const body = (await res.json()) as { access_token: string; expires_in: number };
            tokens.push({ token: body.access_token, expiresAt: Date.now() + body.expires_in * 1000 });
            exchanges += 1;
          } else {
            refused += 1;
          }
        } catch {
          return; // the service died under us
        }
      }
    };
    const pictureWorker = async (n: number) => {
      for (let i = n; running; i++) {
        try {
          const form = new FormData();
          form.append('file', new Blob([new Uint8Array(fixtures[i % fixtures.length]!)]), 'p.bin');
          const res = await fetch(`${base}/api/account/picture`, { method: 'PUT', body: form, headers: { Cookie: cookie, 'X-CSRF-Token': csrf } });
          if (res.status === 200) {
            const ts = ((await res.json()) as { user: { pfpTimestamp: number } }).user.pfpTimestamp;
            lastAckedPicture = Math.max(lastAckedPicture, ts);
            uploads += 1;
          } else {
            refused += 1; // 409 when two uploads race
            await res.arrayBuffer();
          }
        } catch {
          return;
        }
      }
    };
    const workers = [tokenWorker(), tokenWorker(), tokenWorker(), pictureWorker(0), pictureWorker(1)];
    await sleep(200 + Math.random() * 1300);
    await child.kill('SIGKILL');
    running = false;
    await Promise.all(workers);

    // The database right after the kill, before anything repairs it.
    const db = new Database(dbFile, { readonly: true });
    const integrity = db.pragma('integrity_check', { simple: true });
    db.close();
    check(integrity === 'ok', `kill ${kill}: integrity_check says ${String(integrity)}`);
    const before = await store.users.getUser(user.id);
    const names = SIZE_NAMES.flatMap((s) => (fs.existsSync(path.join(picturesDir, s)) ? fs.readdirSync(path.join(picturesDir, s)).map((f) => `${s}/${f}`) : []));
    orphansAfterKill += names.filter((n) => !n.endsWith(`/${user.id}-${before?.pfpTimestamp}.webp`)).length;

    child = await startService();

    // Invariants after the restart (the start-up sweep has run).
    // Tokens issued since the last restart every time, and all of them after the last kill.
    const now = Date.now();
    for (const seen of kill === KILLS ? tokens : tokens.slice(checkedUpTo)) {
      if (seen.expiresAt <= now + 5_000) continue;
      const res = await fetch(`${base}/api/oauth/whois`, { headers: { Authorization: `Bearer ${seen.token}` } });
      check(res.status === 200, `kill ${kill}: an issued token is ${res.status} on whois`);
      await res.arrayBuffer();
      verifiedTokens += 1;
    }
    checkedUpTo = tokens.length;
    const after = await store.users.getUser(user.id);
    const ts = after?.pfpTimestamp ?? null;
    check(lastAckedPicture === 0 || (ts !== null && ts >= lastAckedPicture), `kill ${kill}: pfpTimestamp ${ts} is below the last acknowledged ${lastAckedPicture}`);
    const files = SIZE_NAMES.flatMap((s) => (fs.existsSync(path.join(picturesDir, s)) ? fs.readdirSync(path.join(picturesDir, s)).map((f) => `${s}/${f}`) : [])).sort();
    const expected = ts === null ? [] : SIZE_NAMES.map((s) => `${s}/${user.id}-${ts}.webp`).sort();
    check(JSON.stringify(files) === JSON.stringify(expected), `kill ${kill}: picture files ${JSON.stringify(files)} but pfpTimestamp ${ts} needs exactly ${JSON.stringify(expected)}`);
    if (ts !== null) {
      const res = await fetch(`${base}/pfp/large/${user.id}-${ts}.webp`);
      check(res.status === 200, `kill ${kill}: the current picture is ${res.status}`);
      await res.arrayBuffer();
    }
    process.stdout.write(`kill ${kill}/${KILLS}: ${tokens.length} tokens issued so far, ${uploads} picture changes, ${failures.length} broken invariants\n`);
  }

  await child.stop();
  await store.close();
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stdout.write(
    `crash test: ${KILLS} kill -9, ${exchanges} token exchanges and ${uploads} picture changes acknowledged, ` +
      `${refused} refused (races/409), ${verifiedTokens} token checks after restarts all ${failures.length ? 'NOT ' : ''}ok, ` +
      `${orphansAfterKill} orphan picture files found after kills and swept at start, integrity_check ok ${KILLS - failures.filter((f) => f.includes('integrity')).length}/${KILLS}, ` +
      `${failures.length} broken invariants, ${seconds} s\n`,
  );
  if (!KEEP) fs.rmSync(dir, { recursive: true, force: true });
  process.exit(failures.length === 0 ? 0 : 1);
}

main().catch((err: unknown) => {
  process.stderr.write(`crash test failed to run: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
