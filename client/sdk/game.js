// The game SDK (its interface and documentation: game.d.ts beside this file). A browser ES module
// without dependencies, served by the service at /sdk/game.js. It speaks the game flow's
// postMessage protocol (docs/interface.md#game-flow-pages-and-json) with the play page that frames
// the game: it posts to window.parent only, and only to the service's origin; it listens only to
// window.parent at that origin; each request carries its own `echo`, and only the answer of the
// right type with that echo settles it; the listener goes when the answer (or the timeout) comes.

/** The game flow's error codes, as the play page sends them (src/pages/assets/play.js). */
export const GAME_FLOW_ERROR_CODES = Object.freeze([
  'no_account',
  'invalid_scopes',
  'invalid_app',
  'access_denied',
  'server_error',
  'already_requested',
  'invalid_request',
]);

const MESSAGES = {
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

export class GameAuthError extends Error {
  constructor(code, message = MESSAGES[code] || code) {
    super(message);
    this.name = 'GameAuthError';
    this.code = code;
  }
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
function serviceOrigin(options) {
  const service = options && options.service !== undefined ? options.service : LOADED_FROM;
  try {
    const origin = new URL(service).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

function base64url(bytes) {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

const randomString = (length) => base64url(crypto.getRandomValues(new Uint8Array(length)));

/**
 * Posts `message` to the play page and settles with its answer of type `type` (the value
 * `accept` returns, or its rejection), or a `timeout` error after `timeoutMs`.
 */
function request(origin, message, type, timeoutMs, accept) {
  return new Promise((resolve, reject) => {
    const echo = `game-sdk:${randomString(16)}`;
    let timer;
    const done = () => {
      clearTimeout(timer);
      window.removeEventListener('message', onMessage);
    };
    function onMessage(event) {
      if (event.source !== window.parent || event.origin !== origin) return;
      const data = event.data;
      if (typeof data !== 'object' || data === null || data.echo !== echo || data.type !== type) return;
      done();
      try {
        resolve(accept(data));
      } catch (err) {
        reject(err);
      }
    }
    window.addEventListener('message', onMessage);
    timer = setTimeout(() => {
      done();
      reject(new GameAuthError('timeout'));
    }, timeoutMs);
    try {
      window.parent.postMessage({ ...message, echo }, origin);
    } catch (err) {
      // A value the structured clone cannot copy (say, a function among the scopes).
      done();
      reject(err);
    }
  });
}

/** The origin to talk to, or a `not_framed` rejection. */
function target(options) {
  const origin = serviceOrigin(options);
  if (window.parent === window) throw new GameAuthError('not_framed');
  if (!origin) throw new GameAuthError('not_framed', 'The service’s origin is unknown: pass options.service');
  return origin;
}

const timeoutOf = (options, fallback) => (options && options.timeoutMs !== undefined ? options.timeoutMs : fallback);

export async function info(options) {
  const origin = target(options);
  return request(origin, { action: 'info' }, 'info', timeoutOf(options, INFO_TIMEOUT_MS), (data) => ({
    loggedIn: data.logged_in === true,
    gameId: data.game_id,
  }));
}

export async function authorize(options) {
  const origin = target(options);
  const { clientId, scopes = ['userinfo'], nonce } = options;
  if (!crypto.subtle) throw new Error('The game SDK needs crypto.subtle: serve the game over https (or from localhost)');
  // RFC 7636: 32 random bytes make a 43-character verifier; the challenge is its SHA-256.
  const codeVerifier = randomString(32);
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(codeVerifier));
  const message = {
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
      const code = GAME_FLOW_ERROR_CODES.includes(data.message) ? data.message : 'server_error';
      throw new GameAuthError(code, code === data.message ? undefined : `Unexpected answer from the play page: ${String(data.message)}`);
    });
  } finally {
    if (opener && opener !== document.body && opener.isConnected && document.activeElement === document.body) opener.focus();
  }
}
