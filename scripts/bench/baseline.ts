/**
 * Baseline servers, each its own process: `bare` (Koa, fixed JSON), `sqlite` (Koa + one prepared
 * better-sqlite3 statement returning the users/info shape), `static` (koa-static serving the same
 * picture file). Usage: baseline.ts <mode> <port> [db file | pictures dir]
 */
import Database from 'better-sqlite3';
import Koa from 'koa';
import serve from 'koa-static';

const [mode, portArg, target] = process.argv.slice(2);
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
    ctx.body = {
      message: 'yes',
      user: {
        name: row.name,
        id: row.id,
        bio: row.bio,
        flairs: JSON.parse(String(row.flairs)) as unknown,
        equippedFlair: row.equipped_flair,
        playMinutes: row.play_minutes,
        lastHeartbeat: row.last_heartbeat,
        modLevel: row.mod_level,
      },
    };
  });
} else if (mode === 'static') {
  app.use(serve(target!, { maxage: 31_536_000_000, immutable: true }));
} else {
  throw new Error(`unknown baseline ${mode}`);
}

const server = app.listen(Number(portArg), '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
