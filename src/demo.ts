/** Demo data for a fresh database, so `npm install && npm start` has something to try at once. */
import sharp from 'sharp';
import type { Config } from './config.js';
import { hashSecret } from './security/secrets.js';
import { picturesFor, setPicture } from './pictures/pictures.js';
import type { Store } from './store/types.js';
import { createUser } from './accounts/users.js';

/** Well-known demo credentials. They exist only in demo data and are printed on purpose. */
export const DEMO = {
  user: { name: 'demo', email: 'demo@example.com', password: 'demo-password' },
  otherUser: { name: 'player_two', email: 'player2@example.com', password: 'player-two-password' },
  app: {
    clientId: 'demo_client',
    clientSecret: 'demo-secret',
    name: 'Demo App',
    redirectUri: 'http://localhost:8080/callback',
  },
  /** examples/game/serve.mjs serves the example game here. */
  game: { title: 'Example Game', url: 'http://localhost:8080/' },
  /** A public app (no secret, PKCE) for the static example game, which redeems codes in the browser. */
  publicApp: { clientId: 'demo_game', name: 'Demo Game App', redirectUri: 'http://localhost:8081/' },
  /** examples/static-game/, served by `npm run example:static` (or any static file server) here. */
  staticGame: { title: 'Static Example Game', url: 'http://localhost:8081/' },
  /**
   * A public app for the device flow (RFC 8628): `npm run example:device`, a command-line game,
   * signs its player in with it. It never redirects, so it has no redirect URI.
   */
  deviceApp: { clientId: 'demo_tv_game', name: 'Demo TV Game' },
} as const;

/** A 512x512 gradient with a circle: the demo user's profile picture. */
function demoPictureSvg(): string {
  return (
    '<svg xmlns="http://www.w3.org/2000/svg" width="512" height="512">' +
    '<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">' +
    '<stop offset="0" stop-color="#2b6cb0"/><stop offset="1" stop-color="#9f7aea"/></linearGradient></defs>' +
    '<rect width="512" height="512" fill="url(#g)"/><circle cx="256" cy="200" r="96" fill="#fff"/>' +
    '<rect x="112" y="320" width="288" height="160" rx="80" fill="#fff"/></svg>'
  );
}

interface DemoResult {
  userId: number;
  otherUserId: number;
  pfpTimestamp: number;
  gameId: number;
  staticGameId: number;
}

export async function seedDemo(store: Store, config: Config, now: () => number = Date.now): Promise<DemoResult> {
  const deps = { store, now };
  // Verified, so the printed walk-through can use the email scope at once.
  const user = await createUser(deps, { ...DEMO.user, emailVerified: true });
  const other = await createUser(deps, { ...DEMO.otherUser, emailVerified: true });
  await store.users.updateUser(user.id, {
    bio: 'The demo account of a fresh install.',
    flairs: ['none', 'early-adopter'],
    equippedFlair: 'early-adopter',
    playMinutes: 42,
  });
  await store.apps.createApp({
    clientId: DEMO.app.clientId,
    secretHash: hashSecret(DEMO.app.clientSecret),
    public: false,
    ownerId: user.id,
    name: DEMO.app.name,
    redirectUris: [DEMO.app.redirectUri],
    postLogoutRedirectUris: [],
    grantTypes: ['authorization_code'],
    createdAt: now(),
  });
  await store.apps.createApp({
    clientId: DEMO.publicApp.clientId,
    secretHash: null,
    public: true,
    ownerId: user.id,
    name: DEMO.publicApp.name,
    redirectUris: [DEMO.publicApp.redirectUri],
    postLogoutRedirectUris: [],
    grantTypes: ['authorization_code'],
    createdAt: now(),
  });
  await store.apps.createApp({
    clientId: DEMO.deviceApp.clientId,
    secretHash: null,
    public: true,
    ownerId: user.id,
    name: DEMO.deviceApp.name,
    // Every app may use codes (src/oauth/grant-types.ts), and registration asks for a redirect URI:
    // a loopback one (RFC 8252 7.3, any port), as a desktop build of the same game would use.
    redirectUris: ['http://127.0.0.1/callback'],
    postLogoutRedirectUris: [],
    grantTypes: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
    createdAt: now(),
  });
  const game = await store.games.createGame({ authorId: user.id, title: DEMO.game.title, url: DEMO.game.url, createdAt: now() });
  const staticGame = await store.games.createGame({ authorId: user.id, title: DEMO.staticGame.title, url: staticGameUrl(config.publicUrl), createdAt: now() });
  const picture = await sharp(Buffer.from(demoPictureSvg())).png().toBuffer();
  const pfpTimestamp = await setPicture({ store, pictures: picturesFor(config, store, now), now }, user.id, picture);
  return { userId: user.id, otherUserId: other.id, pfpTimestamp, gameId: game.id, staticGameId: staticGame.id };
}

/**
 * The static game's address: a static page cannot be told where the service is except by its
 * query, so a service elsewhere than the page's default (http://localhost:3000) adds ?service=.
 */
function staticGameUrl(publicUrl: string): string {
  const origin = new URL(publicUrl).origin;
  return origin === 'http://localhost:3000' ? DEMO.staticGame.url : `${DEMO.staticGame.url}?service=${encodeURIComponent(origin)}`;
}

export function demoInstructions(config: Config, demo: DemoResult): string {
  const base = config.publicUrl;
  // The examples talk to SERVICE_URL (default http://localhost:3000): the commands name this service.
  const serve = `SERVICE_URL=${base} node examples/game/serve.mjs`;
  return `
Demo data created (a fresh database):
  user      ${DEMO.user.name} (id ${demo.userId}) / password ${DEMO.user.password}
  user      ${DEMO.otherUser.name} (id ${demo.otherUserId}), no profile picture
  app       client_id ${DEMO.app.clientId} / client_secret ${DEMO.app.clientSecret}
  game      ${DEMO.game.title} (id ${demo.gameId}) at ${DEMO.game.url}: run \`${serve}\`, then open ${base}/play/${demo.gameId}
  app       client_id ${DEMO.publicApp.clientId}, public (no secret, PKCE), for the game below
  game      ${DEMO.staticGame.title} (id ${demo.staticGameId}) at ${DEMO.staticGame.url}: run \`SERVICE_URL=${base} npm run example:static\`, then open ${base}/play/${demo.staticGameId}
  app       client_id ${DEMO.deviceApp.clientId}, public, for devices without a browser: run \`PUBLIC_URL=${base} npm run example:device\` and enter its code at ${base}/device
Sign in at ${base}/signin; the traditional flow, by hand (with \`${serve}\` running):
  ${base}/oauth?response_type=code&client_id=${DEMO.app.clientId}&redirect_uri=${encodeURIComponent(DEMO.app.redirectUri)}&scope=userinfo%20email&state=demo
Try the flow (a code lives 5 minutes, a token 600 seconds):
  CODE=$(npm run --silent admin -- code issue --user ${demo.userId} --client-id ${DEMO.app.clientId} --scope "userinfo email" | node -pe 'JSON.parse(require("fs").readFileSync(0)).code')
  TOKEN=$(curl -s ${base}/api/oauth/token -d grant_type=authorization_code -d code=$CODE -d client_id=${DEMO.app.clientId} -d client_secret=${DEMO.app.clientSecret} | node -pe 'JSON.parse(require("fs").readFileSync(0)).access_token')
  curl -s ${base}/api/oauth/whois -H "Authorization: Bearer $TOKEN"
  curl -s "${base}/api/users/info?id=${demo.userId}"
  curl -s -o demo.webp ${base}/pfp/medium/${demo.userId}-${demo.pfpTimestamp}.webp
  curl -s -o default.webp ${base}/pfp/medium/${demo.otherUserId}.webp
`;
}
