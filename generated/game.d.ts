// Generated from client/sdk/game.ts by `npm run generate`: do not edit.
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
/** The scopes the game flow grants: some of these, in this order, with `userinfo` or `openid`. */
export type GameScope = 'userinfo' | 'openid' | 'profile';
/** The game flow's error codes, as the play page sends them (src/pages/scripts/play.ts). */
export declare const GAME_FLOW_ERROR_CODES: readonly ["no_account", "invalid_scopes", "invalid_app", "access_denied", "server_error", "already_requested", "invalid_request"];
/** The error codes the play page answers with (the game flow's own). */
export type GameFlowErrorCode = (typeof GAME_FLOW_ERROR_CODES)[number];
/**
 * Every code a `GameAuthError` can carry: the play page's, plus the SDK's own:
 * `timeout` (the play page did not answer in time) and `not_framed` (the page is not inside a
 * play page, or the SDK cannot tell the service's origin).
 */
export type GameAuthErrorCode = GameFlowErrorCode | 'timeout' | 'not_framed';
/** A refused or failed request; `code` says why. */
export declare class GameAuthError extends Error {
    readonly name = "GameAuthError";
    readonly code: GameAuthErrorCode;
    constructor(code: GameAuthErrorCode, message?: string);
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
/** Whether a player is signed in, and which game this is. */
export declare function info(options?: GameSdkOptions): Promise<GameInfo>;
/**
 * Asks the player (through the play page) to sign the game in; one authorize per page load.
 * Needs Web Crypto's `crypto.subtle` for the PKCE challenge, which browsers give secure contexts
 * only (https, or localhost): without it, rejects with a plain `Error`. The play page's consent
 * dialog takes the keyboard focus from the game; once answered, the focus goes back to the
 * element that had it in the game (the button that asked), unless the player moved it meanwhile.
 */
export declare function authorize(options: AuthorizeOptions): Promise<AuthorizeResult>;
