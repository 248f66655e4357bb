/**
 * The game SDK's files, served as they are in client/sdk/ (the one copy: `npm run build` copies
 * the folder to dist/client/sdk, the same two levels up from the compiled module). Read once,
 * at start, with a strong ETag from their bytes.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const DIR = path.join(import.meta.dirname, '..', '..', 'client', 'sdk');

interface SdkFile {
  type: string;
  body: string;
  etag: string;
}

function read(name: string, type: string): SdkFile {
  const body = fs.readFileSync(path.join(DIR, name), 'utf8');
  return { type, body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
}

/** `/sdk/game.js` and `/sdk/game.d.ts` (media types: docs/decisions.md#the-game-sdk). */
export const GAME_SDK = {
  module: read('game.js', 'text/javascript; charset=utf-8'),
  types: read('game.d.ts', 'application/typescript; charset=utf-8'),
};

/** Browsers may reuse a copy for five minutes, then revalidate it with the ETag (a 304). */
export const SDK_CACHE_CONTROL = 'public, max-age=300';
