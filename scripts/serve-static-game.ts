/**
 * `npm run example:static`: serves examples/static-game/ (static files only; any static file
 * server works as well) on http://localhost:8081/, where the demo data registers the game
 * "Static Example Game", and prints the service's play page for it. The page it serves names
 * SERVICE_URL (the game opened on its own looks for the service there).
 *
 * Environment: PORT (8081), SERVICE_URL (http://localhost:3000).
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Koa from 'koa';
import serve from 'koa-static';

const FOLDER = path.resolve(import.meta.dirname, '..', 'examples', 'static-game');

const escapeAttribute = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * Serves the folder's files on 127.0.0.1 (port 0: any free one); nothing else. With `service`, the
 * page carries it (`<html data-service>`), so the game opened on its own (outside a play page)
 * looks for the service there, and names that address if nothing answers.
 */
export async function serveStaticGame(port: number, service?: string): Promise<{ url: string; close: () => Promise<void> }> {
  const koa = new Koa();
  if (service !== undefined) {
    const page = fs.readFileSync(path.join(FOLDER, 'index.html'), 'utf8').replace('<html lang="en">', `<html lang="en" data-service="${escapeAttribute(service)}">`);
    koa.use(async (ctx, next) => {
      if (ctx.method === 'GET' && (ctx.path === '/' || ctx.path === '/index.html')) {
        ctx.type = 'text/html; charset=utf-8';
        ctx.body = page;
        return;
      }
      await next();
    });
  }
  koa.use(serve(FOLDER));
  const server = koa.listen(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The play page of the game registered at `origin`, asked of the service (GET /api/games). */
async function playPageOf(service: string, origin: string): Promise<string | undefined> {
  try {
    const res = await fetch(`${service}/api/games`);
    const { games } = (await res.json()) as { games: { id: number; url: string }[] };
    const game = games.find((g) => new URL(g.url).origin === origin);
    return game && `${service}/play/${game.id}`;
  } catch {
    return undefined;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const port = Number(process.env.PORT || 8081);
  const service = new URL(process.env.SERVICE_URL || 'http://localhost:3000').origin;
  await serveStaticGame(port, service);
  const origin = `http://localhost:${port}`;
  const play = await playPageOf(service, origin);
  process.stdout.write(
    `Static example game on ${origin}/ (files of examples/static-game/)\n` +
      (play
        ? `Play it, signed in to the service: ${play}\n`
        : `No game at ${origin}/ on ${service} (is the service running?): register one at ${service}/games, then open its play page.\n`),
  );
}
