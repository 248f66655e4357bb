/**
 * The game SDK: a browser ES module for games framed by the service's play page
 * (`/play/<gameId>`). It speaks the game flow's postMessage protocol (docs/interface.md#game-flow-pages-and-json)
 * so a game does not have to: it posts to the framing play page only, ignores every message that
 * is not from that page at the service's origin, matches each answer to its request, makes the
 * PKCE pair for the code, and gives up after a timeout.
 *
 *   import { authorize, info } from 'https://id.example.com/sdk/game.js';
 *   const { loggedIn } = await info();
 *   const { code, codeVerifier } = await authorize({ clientId: 'my_game', scopes: ['openid', 'profile'] });
 *   // redeem: POST /api/oauth/token with grant_type, code, client_id and code_verifier (a public app)
 *
 * @packageDocumentation
 */
// Served by the service at /sdk/game.js (bundled by esbuild, src/pages/browser-code.ts); its
// declarations (/sdk/game.d.ts, the package's `./game` types) are generated from this file by
// `npm run generate`. No dependencies: a game imports it from the service or bundles it.

/** The scopes the game flow grants: some of these, in this order, with `userinfo` or `openid`. */
export type GameScope = 'userinfo' | 'openid' | 'profile';

/** The game flow's error codes, as the play page sends them (src/pages/scripts/play.ts). */
export const GAME_FLOW_ERROR_CODES = Object.freeze([
  'no_account',
  'invalid_scopes',
  'invalid_app',
  'access_denied',
  'server_error',
  'already_requested',
  'invalid_request',
] as const);

/** The error codes the play page answers with (the game flow's own). */
export type GameFlowErrorCode = (typeof GAME_FLOW_ERROR_CODES)[number];

/**
 * Every code a `GameAuthError` can carry: the play page's, plus the SDK's own:
 * `timeout` (the play page did not answer in time) and `not_framed` (the page is not inside a
 * play page, or the SDK cannot tell the service's origin).
 */
export type GameAuthErrorCode = GameFlowErrorCode | 'timeout' | 'not_framed';

const MESSAGES: Record<GameAuthErrorCode, string> = {
  no_account: 'The player is not signed in to the service',
  invalid_scopes: 'The game flow does not grant these scopes',
  invalid_app: "Unknown app, or its owner is not the game's author",
  access_denied: 'The player refused',
  server_error: 'The service failed to answer',
  already_requested: 'This page load already asked to authorize',
  invalid_request: 'Malformed PKCE or nonce parameters',
  timeout: 'The play page did not answer in time',
  not_framed: 'The game is not framed by the service’s play page',
};

/** A refused or failed request; `code` says why. */
export class GameAuthError extends Error {
  override readonly name = 'GameAuthError';
  readonly code: GameAuthErrorCode;
  constructor(code: GameAuthErrorCode, message: string = MESSAGES[code]) {
    super(message);
    this.code = code;
  }
}

export interface GameSdkOptions {
  /**
   * The service's origin (e.g. `https://id.example.com`): where the play page that frames the game
   * lives. Defaults to the origin the SDK was loaded from (`/sdk/game.js` on the service); give it
   * when the SDK is bundled into the game instead.
   */
  service?: string;
  /** Milliseconds to wait for the play page's answer (info: 10 000; authorize: 300 000, the player may take a while). */
  timeoutMs?: number;
}

export interface AuthorizeOptions extends GameSdkOptions {
  /** The app's client id (registered by the game's author). */
  clientId: string;
  /** Default `['userinfo']`. */
  scopes?: GameScope[];
  /** OpenID Connect: a value the ID token will repeat (with the `openid` scope). */
  nonce?: string;
}

export interface AuthorizeResult {
  /** The authorization code: one use, five minutes, bound to the PKCE challenge. */
  code: string;
  /** The PKCE verifier the SDK made; send it with the code to the token endpoint as `code_verifier`. */
  codeVerifier: string;
}

export interface GameInfo {
  /** Whether a player is signed in to the service in this browser. */
  loggedIn: boolean;
  /** The game's id on the service. */
  gameId: number;
}

const INFO_TIMEOUT_MS = 10_000;
const AUTHORIZE_TIMEOUT_MS = 300_000;

/** Where this module was loaded from ('null' when bundled into a page from file: or blob:). */
const LOADED_FROM = (() => {
  try {
    return new URL(import.meta.url).origin;
  } catch {
    return 'null';
  }
})();

/** The service's origin from the options, or undefined when there is none to talk to. */
function serviceOrigin(options: GameSdkOptions | undefined): string | undefined {
  const service = options?.service !== undefined ? options.service : LOADED_FROM;
  try {
    const origin = new URL(service).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

const randomString = (length: number) => base64url(crypto.getRandomValues(new Uint8Array(length)));

/** An answer of the play page, as far as the SDK trusts it: an object with its type and echo. */
type Answer = Record<string, unknown> & { type: string; echo: string };

const isAnswer = (data: unknown, type: string, echo: string): data is Answer =>
  typeof data === 'object' && data !== null && (data as Answer).echo === echo && (data as Answer).type === type;

/**
 * Posts `message` to the play page and settles with its answer of type `type` (the value
 * `accept` returns, or its rejection), or a `timeout` error after `timeoutMs`.
 */
function request<T>(origin: string, message: Record<string, unknown>, type: string, timeoutMs: number, accept: (data: Answer) => T): Promise<T> {
  return new Promise((resolve, reject) => {
    const echo = `game-sdk:${randomString(16)}`;
    const timer = setTimeout(() => {
      done();
      reject(new GameAuthError('timeout'));
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      window.removeEventListener('message', onMessage);
    };
    function onMessage(event: MessageEvent<unknown>): void {
      if (event.source !== window.parent || event.origin !== origin) return;
      if (!isAnswer(event.data, type, echo)) return;
      done();
      try {
        resolve(accept(event.data));
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    }
    window.addEventListener('message', onMessage);
    try {
      window.parent.postMessage({ ...message, echo }, origin);
    } catch (err) {
      // A value the structured clone cannot copy (say, a function among the scopes): the browser's
      // DataCloneError as it is (a DOMException of the parent window's realm, so no `instanceof`
      // of this one's classes recognises it).
      done();
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the browser's own error, as it is
      reject(err);
    }
  });
}

/** The origin to talk to, or a `not_framed` rejection. */
function target(options: GameSdkOptions | undefined): string {
  const origin = serviceOrigin(options);
  if (window.parent === window) throw new GameAuthError('not_framed');
  if (!origin) throw new GameAuthError('not_framed', 'The service’s origin is unknown: pass options.service');
  return origin;
}

const timeoutOf = (options: GameSdkOptions | undefined, fallback: number) => options?.timeoutMs ?? fallback;

const isFlowErrorCode = (value: unknown): value is GameFlowErrorCode => (GAME_FLOW_ERROR_CODES as readonly unknown[]).includes(value);

/** Whether a player is signed in, and which game this is. */
export async function info(options?: GameSdkOptions): Promise<GameInfo> {
  const origin = target(options);
  return request(origin, { action: 'info' }, 'info', timeoutOf(options, INFO_TIMEOUT_MS), (data) => ({
    loggedIn: data.logged_in === true,
    gameId: Number(data.game_id),
  }));
}

/**
 * Asks the player (through the play page) to sign the game in; one authorize per page load.
 * Needs Web Crypto's `crypto.subtle` for the PKCE challenge, which browsers give secure contexts
 * only (https, or localhost): without it, rejects with a plain `Error`. The play page's consent
 * dialog takes the keyboard focus from the game; once answered, the focus goes back to the
 * element that had it in the game (the button that asked), unless the player moved it meanwhile.
 */
export async function authorize(options: AuthorizeOptions): Promise<AuthorizeResult> {
  const origin = target(options);
  const { clientId, scopes = ['userinfo'], nonce } = options;
  // Typed as always there, but absent outside secure contexts.
  if (!(crypto.subtle as SubtleCrypto | undefined)) throw new Error('The game SDK needs crypto.subtle: serve the game over https (or from localhost)');
  // RFC 7636: 32 random bytes make a 43-character verifier; the challenge is its SHA-256.
  const codeVerifier = randomString(32);
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(codeVerifier));
  const message: Record<string, unknown> = {
    action: 'authorize',
    client_id: clientId,
    scopes,
    code_challenge: base64url(new Uint8Array(digest)),
    code_challenge_method: 'S256',
  };
  if (nonce !== undefined) message.nonce = nonce;
  // The play page's consent dialog takes the focus from this frame; once answered, it goes back
  // to what had it here (the button that asked), unless the player has moved it meanwhile.
  const opener = document.activeElement;
  try {
    return await request(origin, message, 'authorized', timeoutOf(options, AUTHORIZE_TIMEOUT_MS), (data) => {
      if (data.error === false && typeof data.code === 'string') return { code: data.code, codeVerifier };
      if (isFlowErrorCode(data.message)) throw new GameAuthError(data.message);
      throw new GameAuthError('server_error', `Unexpected answer from the play page: ${String(data.message)}`);
    });
  } finally {
    if (opener instanceof HTMLElement && opener !== document.body && opener.isConnected && document.activeElement === document.body) opener.focus();
  }
}
