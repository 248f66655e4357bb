/**
 * Baseline servers, each its own process: `bare` (Koa, fixed JSON), `sqlite` (Koa + one prepared
 * better-sqlite3 statement returning the users/info shape), `static` (koa-static serving the same
 * picture file), and on PostgreSQL `pg-read` (Koa + a `pg` pool + one named prepared statement
 * returning the users/info shape) and `pg-exchange` (Koa + a `pg` pool + a code's claim and its
 * token's insert, named prepared statements, in one transaction: the token exchange's two writes
 * and nothing else). Usage: baseline.ts <mode> <port> [db file | pictures dir | PostgreSQL URL]
 * [pool size, PostgreSQL]
 */
import Database from 'better-sqlite3';
import Koa from 'koa';
import serve from 'koa-static';
import pg from 'pg';
import { hashSecret, randomSecret } from '../../src/security/secrets.js';

const [mode, portArg, target, poolArg] = process.argv.slice(2);

/** The service's own connection settings' pool (src/store/connection.ts), `max` as the bench sets it. */
function pgPool(): pg.Pool {
  const pool = new pg.Pool({ connectionString: target, max: Number(poolArg ?? 10) });
  pool.on('error', () => {});
  return pool;
}

/** The users/info shape of a users row, as both read baselines answer it. */
function userInfo(row: Record<string, unknown>) {
  return {
    message: 'yes',
    user: {
      name: row.name,
      id: Number(row.id),
      bio: row.bio,
      flairs: JSON.parse(String(row.flairs)) as unknown,
      equippedFlair: row.equipped_flair,
      playMinutes: Number(row.play_minutes),
      lastHeartbeat: Number(row.last_heartbeat),
      modLevel: Number(row.mod_level),
    },
  };
}
const app = new Koa();
// autocannon closes connections mid-stream when a run ends; that is not worth a stack trace.
app.silent = true;

if (mode === 'bare') {
  const body = { message: 'yes', user: { name: 'user1', id: 1, bio: 'Bio of user1', flairs: ['none', 'veteran'], equippedFlair: 'veteran', playMinutes: 1, lastHeartbeat: 0, modLevel: 0 } };
  app.use((ctx) => {
    ctx.body = body;
  });
} else if (mode === 'sqlite') {
  const db = new Database(target, { readonly: true });
  const stmt = db.prepare<[number], Record<string, unknown>>('select * from users where id = ?');
  app.use((ctx) => {
    const row = stmt.get(Number(ctx.query.id));
    if (!row) {
      ctx.status = 404;
      ctx.body = { message: 'User not found' };
      return;
    }
    ctx.body = userInfo(row);
  });
} else if (mode === 'pg-read') {
  const pool = pgPool();
  const read = { name: 'baseline_user', text: 'select * from users where id = $1' };
  app.use(async (ctx) => {
    const row = (await pool.query<Record<string, unknown>>({ ...read, values: [Number(ctx.query.id)] })).rows[0];
    if (!row) {
      ctx.status = 404;
      ctx.body = { message: 'User not found' };
      return;
    }
    ctx.body = userInfo(row);
  });
} else if (mode === 'pg-exchange') {
  const pool = pgPool();
  const claim = {
    name: 'baseline_claim',
    text: 'update auth_codes set used_at = $1, token_hash = $2 where code_hash = $3 and used_at is null and expires_at > $1 returning client_id, user_id, scopes',
  };
  const insert = {
    name: 'baseline_insert',
    text: 'insert into access_tokens (token_hash, client_id, user_id, scopes, code_hash, expires_at, revoked_at, created_at) values ($1, $2, $3, $4, $5, $6, null, $7)',
  };
  app.use(async (ctx) => {
    let form = '';
    for await (const chunk of ctx.req) form += String(chunk);
    const codeHash = hashSecret(new URLSearchParams(form).get('code') ?? '');
    const token = randomSecret(32);
    const tokenHash = hashSecret(token);
    const now = Date.now();
    const client = await pool.connect();
    let won = false;
    try {
      await client.query('begin');
      const code = (await client.query<Record<string, unknown>>({ ...claim, values: [now, tokenHash, codeHash] })).rows[0];
      if (code) {
        await client.query({ ...insert, values: [tokenHash, code.client_id, code.user_id, code.scopes, codeHash, now + 600_000, now] });
        won = true;
      }
      await client.query('commit');
    } catch (err) {
      await client.query('rollback');
      throw err;
    } finally {
      client.release();
    }
    if (!won) {
      ctx.status = 400;
      ctx.body = { message: 'Invalid authorization code' };
      return;
    }
    ctx.body = { access_token: token, token_type: 'Bearer', expires_in: 600 };
  });
} else if (mode === 'static') {
  app.use(serve(target!, { maxage: 31_536_000_000, immutable: true }));
} else {
  throw new Error(`unknown baseline ${mode}`);
}

const server = app.listen(Number(portArg), '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
