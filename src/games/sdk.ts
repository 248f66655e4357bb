/**
 * The game SDK's cache rule. Its files (`/sdk/game.js`, bundled from client/sdk/game.ts, and
 * `/sdk/game.d.ts`, generated from it) are served from src/pages/browser-code.ts (media types:
 * docs/decisions.md#the-game-sdk).
 */

/** Browsers may reuse a copy for five minutes, then revalidate it with the ETag (a 304). */
export const SDK_CACHE_CONTROL = 'public, max-age=300';
