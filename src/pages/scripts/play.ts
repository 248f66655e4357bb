/**
 * The play page's side of the game flow (docs/decisions.md#game-flow). It listens only to its
 * game's iframe window at the game's origin, answers only to that origin (never '*'), allows one
 * authorize per page load, asks the player in a dialog, and gets the code from the server
 * (session + CSRF), which checks the same rules again. While signed in it also sends a heartbeat
 * every minute. The other side is the game SDK (client/sdk/game.ts).
 */
import type { components } from '../../../generated/api.js';
import type { GameFlowErrorCode } from '../../../client/sdk/game.js';
import { ids } from '../ids.js';
import { api, reasonOf, type Answer } from './api.js';
import { all, byId } from './dom.js';

type GameApp = components['schemas']['GameApp'];

/** A message from the game's frame, as it came (structured-cloned): each field is checked where it is read. */
type Request = Record<string, unknown>;

/** The optional PKCE and OpenID parameters of an authorize request. */
interface PkceParameters {
  code_challenge?: string;
  code_challenge_method?: 'S256';
  nonce?: string;
}

/** What this page answers (with the request's `echo`, when it had one). */
type Reply =
  | { type: 'info'; logged_in: boolean; game_id: number }
  | { type: 'authorized'; error: false; code: string }
  | { type: 'authorized'; error: true; message: GameFlowErrorCode };

const frame = byId(ids.play.frame, HTMLIFrameElement);
const dialog = byId(ids.play.consent, HTMLDialogElement);

function frameData(name: 'origin' | 'gameId' | 'loggedIn' | 'scopes'): string {
  const value = frame.dataset[name];
  if (value === undefined) throw new Error(`#${frame.id} has no data-${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`);
  return value;
}

const origin = frameData('origin');
const gameId = Number(frameData('gameId'));
const loggedIn = frameData('loggedIn') === 'true';
// The scopes a game may ask for, in this order (the server's list); the server checks the rule again.
const grantable = frameData('scopes').split(' ');

const isRequest = (data: unknown): data is Request => typeof data === 'object' && data !== null;

// Some of them, each once, in order, with userinfo or openid; profile only with openid.
function validScopes(scopes: unknown): scopes is string[] {
  if (!Array.isArray(scopes) || scopes.length === 0) return false;
  const asked: unknown[] = scopes;
  let previous = -1;
  for (const scope of asked) {
    const position = grantable.findIndex((g) => g === scope);
    if (position < 0 || position <= previous) return false;
    previous = position;
  }
  if (!asked.includes('userinfo') && !asked.includes('openid')) return false;
  return !asked.includes('profile') || asked.includes('openid');
}

let requested = false;

// The modal dialog makes the page behind it inert; Tab on its last control (Shift+Tab on its
// first) comes round to the first (the last) instead of leaving for the browser's own controls.
const enabled = (control: HTMLElement) => !('disabled' in control) || control.disabled !== true;
dialog.addEventListener('keydown', (event) => {
  if (event.key !== 'Tab') return;
  const controls = all('button, a[href], input, select, textarea', dialog).filter((c) => enabled(c) && c.offsetParent !== null);
  const [first, last] = [controls[0], controls.at(-1)];
  if (!first || !last) return;
  if (event.shiftKey ? document.activeElement === first : document.activeElement === last) {
    event.preventDefault();
    (event.shiftKey ? last : first).focus();
  }
});

function reply(message: Reply, request: Request): void {
  const answer = Object.prototype.hasOwnProperty.call(request, 'echo') ? { ...message, echo: request.echo } : message;
  frame.contentWindow?.postMessage(answer, origin);
}

const refusal = (message: GameFlowErrorCode): Reply => ({ type: 'authorized', error: true, message });

const STATUS_MESSAGES: Partial<Record<number, GameFlowErrorCode>> = { 400: 'invalid_scopes', 401: 'no_account', 403: 'invalid_app', 404: 'invalid_app' };
const refusalFor = (answer: Answer) => refusal(STATUS_MESSAGES[answer.response.status] ?? 'server_error');

// The optional PKCE and OpenID parameters of the authorize message, passed on to the server as
// they are; undefined when malformed (the server checks them again, and requires a challenge
// from a public app).
const PKCE_FIELDS = ['code_challenge', 'code_challenge_method', 'nonce'] as const;
function pkceParameters(request: Request): PkceParameters | undefined {
  const given: Partial<Record<(typeof PKCE_FIELDS)[number], string>> = {};
  for (const name of PKCE_FIELDS) {
    const value = request[name];
    if (value === undefined) continue;
    if (typeof value !== 'string' || value === '') return undefined;
    if (value.length > (name === 'nonce' ? 512 : 128)) return undefined;
    given[name] = value;
  }
  const { code_challenge, code_challenge_method, nonce } = given;
  if (code_challenge_method !== undefined && code_challenge_method !== 'S256') return undefined;
  if (code_challenge_method !== undefined && code_challenge === undefined) return undefined;
  return {
    ...(code_challenge !== undefined ? { code_challenge } : {}),
    ...(code_challenge_method !== undefined ? { code_challenge_method } : {}),
    ...(nonce !== undefined ? { nonce } : {}),
  };
}

// A 400 about PKCE (a public app without a challenge, a malformed one) is the request's fault,
// not the scopes'.
const isPkceRefusal = (answer: Answer) => answer.response.status === 400 && /code_challenge|PKCE/.test(reasonOf(answer));

function ask(app: GameApp, scopes: string[]): Promise<boolean> {
  byId(ids.play.consentApp).textContent = app.name;
  byId(ids.play.consentOwner).textContent = app.owner.name;
  // The dialog lists every grantable scope; it shows those asked for.
  for (const item of all('li[data-scope]', dialog)) item.hidden = !scopes.includes(item.dataset.scope ?? '');
  // Where the focus was (the game's frame, its button inside): it goes back there when the dialog closes.
  const opener = document.activeElement;
  return new Promise((resolve) => {
    dialog.addEventListener(
      'close',
      () => {
        if ((opener instanceof HTMLElement || opener instanceof SVGElement) && opener !== document.body && opener.isConnected) opener.focus();
        resolve(dialog.returnValue === 'authorize');
      },
      { once: true },
    );
    dialog.returnValue = '';
    dialog.showModal();
  });
}

async function authorize(request: Request): Promise<Reply> {
  if (!loggedIn) return refusal('no_account');
  const scopes = request.scopes;
  if (!validScopes(scopes)) return refusal('invalid_scopes');
  const clientId = request.client_id;
  if (typeof clientId !== 'string' || clientId === '') return refusal('invalid_app');
  const pkce = pkceParameters(request);
  if (!pkce) return refusal('invalid_request');
  const path = { gameId: String(gameId), clientId };
  const app = await api.GET('/api/games/{gameId}/apps/{clientId}', { params: { path, query: { scope: scopes.join(' ') } } });
  if (!app.data) return refusalFor(app);
  // A remembered grant needs no dialog (the server records and checks grants; docs/account.md).
  if (!app.data.granted && !(await ask(app.data, scopes))) return refusal('access_denied');
  const res = await api.POST('/api/games/{gameId}/codes', { params: { path: { gameId: path.gameId } }, body: { client_id: clientId, scopes, ...pkce } });
  if (isPkceRefusal(res)) return refusal('invalid_request');
  if (!res.data) return refusalFor(res);
  return { type: 'authorized', error: false, code: res.data.code };
}

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  if (event.source !== frame.contentWindow || event.origin !== origin) return;
  const request = event.data;
  if (!isRequest(request)) return;
  if (request.action === 'info') {
    reply({ type: 'info', logged_in: loggedIn, game_id: gameId }, request);
  } else if (request.action === 'authorize') {
    if (requested) return reply(refusal('already_requested'), request);
    requested = true;
    authorize(request).then(
      (answer) => reply(answer, request),
      () => reply(refusal('server_error'), request),
    );
  }
});

if (loggedIn) {
  // A missed beat costs a minute of play time at most; nothing to tell the player.
  const beat = () => void api.POST('/api/account/heartbeat').catch(() => undefined);
  beat();
  setInterval(beat, 60_000);
}
