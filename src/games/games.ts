import { Forbidden, InvalidInput, NotFound } from '../domain/errors.js';
/**
 * Games and the game flow's server side (docs/decisions.md#game-flow): a game is hosted at its own address and
 * framed by /play/<id>; an app may get codes through a game only when its owner is the game's
 * author, and only for the scopes gameScopesProblem allows (userinfo, openid, profile; never email).
 */
import type { components } from '../../generated/api.js';
import type { Deps } from '../oauth/deps.js';
import { webAddressProblem } from '../oauth/redirect-uris.js';
import { issueCode } from '../oauth/codes.js';
import { gameScopesProblem, knownScopes, type Scope } from '../oauth/scopes.js';
import type { AppRecord } from '../domain/apps.js';
import type { GamePatch, GameWithAuthor } from '../domain/games.js';
import type { UserRecord } from '../domain/users.js';
import { CONTROL_CHARACTER } from '../domain/text.js';
import type { Store } from '../store/types.js';

/** The scopes the game flow may grant (a request takes some of them, in this order). */
export const GAME_SCOPES = ['userinfo', 'openid', 'profile'] as const satisfies readonly Scope[];

/** The game flow's scope rule (src/oauth/scopes.ts), as a 400; the scopes, typed, when they pass. */
export function gameScopes(scopes: readonly string[]): Scope[] {
  const problem = gameScopesProblem(scopes);
  if (problem) throw new InvalidInput(problem);
  return knownScopes(scopes);
}

/** A title as typed: 1-64 characters once trimmed, no control characters; the trimmed title. */
function gameTitle(raw: string): string {
  const title = raw.trim();
  if (title.length < 1 || title.length > 64) throw new InvalidInput('Game title must be 1 to 64 characters');
  if (CONTROL_CHARACTER.test(raw)) throw new InvalidInput('Game title must not contain control characters');
  return title;
}

/** Where a game is hosted: an address a browser may frame (webAddressProblem). */
function gameUrl(url: string): string {
  const problem = webAddressProblem(url, 'Game URL');
  if (problem) throw new InvalidInput(problem);
  return url;
}

export async function registerGame(
  deps: Deps,
  input: { authorId: number; title: string; url: string },
): Promise<GameWithAuthor> {
  const title = gameTitle(input.title);
  const url = gameUrl(input.url);
  const author = await deps.store.users.getUser(input.authorId);
  if (!author) throw new NotFound(`User ${input.authorId} not found`);
  const game = await deps.store.games.createGame({ authorId: author.id, title, url, createdAt: deps.now() });
  return { ...game, authorName: author.name };
}

export async function getGame(store: Pick<Store, 'games'>, id: number): Promise<GameWithAuthor> {
  const game = await store.games.getGame(id);
  if (!game) throw new NotFound('Game not found');
  return game;
}

/** The game with this id if `authorId` wrote it; 404 otherwise, as for no game (never saying whose it is). */
export async function ownedGame(store: Pick<Store, 'games'>, id: number, authorId: number): Promise<GameWithAuthor> {
  const game = await store.games.getGame(id);
  if (!game || game.authorId !== authorId) throw new NotFound('Game not found');
  return game;
}

/**
 * Changes a game's title and/or address with registerGame's rules; at least one must be given.
 * The play page and the CORS origins of the author's public apps read the game on each request,
 * so the change holds from the next one. No ownership check: the caller's (ownedGame), or the
 * operator's CLI.
 */
export async function updateGame(store: Pick<Store, 'games'>, id: number, change: { title?: string; url?: string }): Promise<GameWithAuthor> {
  if (change.title === undefined && change.url === undefined) throw new InvalidInput('Send at least one of title and url');
  const patch: GamePatch = {};
  if (change.title !== undefined) patch.title = gameTitle(change.title);
  if (change.url !== undefined) patch.url = gameUrl(change.url);
  if (!(await store.games.updateGame(id, patch))) throw new NotFound(`Game ${id} not found`);
  const game = await store.games.getGame(id);
  // Only a deletion racing this gets here.
  if (!game) throw new NotFound(`Game ${id} not found`);
  return game;
}

/**
 * Deletes a game: /play/<id> answers 404 and its game flow stops (gameApp finds no game). Codes
 * issued through it belong to the app and expire as usual. No ownership check, as updateGame.
 */
export async function deleteGame(store: Pick<Store, 'games'>, id: number): Promise<void> {
  if (!(await store.games.deleteGame(id))) throw new NotFound(`Game ${id} not found`);
}

/** The origin the play page frames and exchanges messages with. */
export function gameOrigin(game: { url: string }): string {
  return new URL(game.url).origin;
}

/** The app a game may request codes for: it exists and its owner is the game's author. */
export async function gameApp(
  store: Pick<Store, 'games' | 'apps' | 'users'>,
  gameId: number,
  clientId: string,
): Promise<{ game: GameWithAuthor; app: AppRecord; owner: UserRecord }> {
  const game = await getGame(store, gameId);
  const app = await store.apps.getApp(clientId);
  if (!app) throw new NotFound('App not found');
  if (app.ownerId !== game.authorId) throw new Forbidden("The app's owner is not the game's author");
  const owner = await store.users.getUser(app.ownerId);
  if (!owner) throw new NotFound('App not found');
  return { game, app, owner };
}

/**
 * Issues a game-flow code: the requested game scopes, bound to no redirect_uri, and to the PKCE
 * challenge when one is sent (a public app must send one: issueCode refuses its code without).
 */
export async function issueGameCode(
  deps: Deps,
  input: {
    gameId: number;
    clientId: string;
    scopes: string[];
    userId: number;
    /** When the player signed in (the ID token's auth_time). */
    authTime: number;
    /** How the player signed in (the ID token's amr and acr). */
    amr: readonly string[];
    codeChallenge?: string;
    codeChallengeMethod?: 'S256';
    nonce?: string;
  },
): Promise<string> {
  const scopes = gameScopes(input.scopes);
  if (input.codeChallengeMethod !== undefined && input.codeChallenge === undefined) {
    throw new InvalidInput('code_challenge_method was sent without a code_challenge');
  }
  const { app } = await gameApp(deps.store, input.gameId, input.clientId);
  const { code } = await issueCode(deps, {
    userId: input.userId,
    clientId: app.clientId,
    scope: scopes.join(' '),
    redirectUri: null,
    codeChallenge: input.codeChallenge ?? null,
    nonce: input.nonce ?? null,
    authTime: input.authTime,
    amr: input.amr,
  });
  return code;
}

export function gameView(game: GameWithAuthor): components['schemas']['Game'] {
  return {
    id: game.id,
    title: game.title,
    url: game.url,
    author: { id: game.authorId, name: game.authorName },
    created_at: game.createdAt,
  };
}
