/**
 * `npm run example:static`: serves examples/static-game/ (static files only; any static file
 * server works as well) on http://localhost:8081/, where the demo data registers the game
 * "Static Example Game", and prints the service's play page for it.
 *
 * Environment: PORT (8081), SERVICE_URL (http://localhost:3000).
 */
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Koa from 'koa';
import serve from 'koa-static';

const FOLDER = path.resolve(import.meta.dirname, '..', 'examples', 'static-game');

/** Serves the folder's files on 127.0.0.1 (port 0: any free one); nothing else. */
export async function serveStaticGame(port: number): Promise<{ url: string; close: () => Promise<void> }> {
  const koa = new Koa();
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
  await serveStaticGame(port);
  const origin = `http://localhost:${port}`;
  const play = await playPageOf(service, origin);
  process.stdout.write(
    `Static example game on ${origin}/ (files of examples/static-game/)\n` +
      (play
        ? `Play it, signed in to the service: ${play}\n`
        : `No game at ${origin}/ on ${service} (is the service running?): register one at ${service}/games, then open its play page.\n`),
  );
}
