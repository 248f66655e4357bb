/** Which browser origins may read the answers about a public app (docs/decisions.md#cors). */
import type { Store } from '../store/types.js';

/**
 * Whether a browser page at `origin` may read a response about this app (`x-cors: client`,
 * docs/decisions.md#cors): only for a public app, and only from the origins of its http(s)
 * redirect URIs or of the games its owner wrote (the pages the app runs in).
 */
export async function corsOriginAllowed(store: Store, clientId: string, origin: string): Promise<boolean> {
  const app = await store.apps.getApp(clientId);
  if (!app?.public) return false;
  const originOf = (uri: string): string | undefined => {
    try {
      const url = new URL(uri);
      return url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : undefined;
    } catch {
      return undefined;
    }
  };
  if (app.redirectUris.some((uri) => originOf(uri) === origin)) return true;
  const games = await store.games.listGamesByAuthor(app.ownerId);
  return games.some((game) => originOf(game.url) === origin);
}
