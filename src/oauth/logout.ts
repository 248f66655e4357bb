/**
 * OpenID Connect RP-Initiated Logout 1.0 (docs/oauth.md#signing-out-rp-initiated-logout): which
 * app asks, whether its ID token hint names the signed-in person and is still current, and where
 * the browser goes afterwards. Every check fails with a 400 error page, never a redirect.
 */
import { compactVerify, createLocalJWKSet } from 'jose';
import { InvalidInput } from '../domain/errors.js';
import type { AppRecord } from '../domain/apps.js';
import type { Config } from '../config.js';
import type { KeyRing } from './keys.js';
import type { Store } from '../store/types.js';

export interface LogoutParams {
  id_token_hint?: string;
  post_logout_redirect_uri?: string;
  client_id?: string;
  state?: string;
}

/** The parameters that travel from the "Sign out?" page's form back to the confirmation. */
export const LOGOUT_FIELDS = ['id_token_hint', 'post_logout_redirect_uri', 'client_id', 'state'] as const satisfies readonly (keyof LogoutParams)[];

export interface LogoutRequest {
  /** The app that asks (from the hint's audience or client_id), if any. */
  app: AppRecord | undefined;
  /** The user id the hint names (its `sub`), if a hint came. */
  hintUserId: number | undefined;
  /**
   * A hint came and has not expired (its `exp` is later than the service's clock). An expired
   * hint still names the app and the person, but never sends the browser on without a page.
   */
  hintCurrent: boolean;
  /** Where to go afterwards, with the state; undefined: the "signed out" page. */
  redirectTo: string | undefined;
}

const BAD_HINT = 'The id_token_hint is not an ID token this service issued';

interface Deps {
  store: Pick<Store, 'apps'>;
  keys: KeyRing;
  /** PUBLIC_URL: the issuer of the ID tokens a hint must be. */
  config: Pick<Config, 'publicUrl'>;
  now: () => number;
}

/**
 * The hint's audience and subject, once its signature is one of the published keys' (expired hints
 * count), and whether it is still current.
 */
async function readHint(deps: Deps, hint: string): Promise<{ clientId: string; userId: number; current: boolean }> {
  let payload: Record<string, unknown>;
  try {
    const verified = await compactVerify(hint, createLocalJWKSet(await deps.keys.jwks()));
    payload = JSON.parse(new TextDecoder().decode(verified.payload)) as Record<string, unknown>;
  } catch {
    throw new InvalidInput(BAD_HINT);
  }
  const aud = Array.isArray(payload.aud) ? (payload.aud[0] as unknown) : payload.aud;
  const userId = Number(payload.sub);
  if (payload.iss !== deps.config.publicUrl || typeof aud !== 'string' || !Number.isSafeInteger(userId)) throw new InvalidInput(BAD_HINT);
  return { clientId: aud, userId, current: typeof payload.exp === 'number' && payload.exp * 1000 > deps.now() };
}

export async function resolveLogout(deps: Deps, params: LogoutParams): Promise<LogoutRequest> {
  const hint = params.id_token_hint ? await readHint(deps, params.id_token_hint) : undefined;
  if (hint && params.client_id !== undefined && params.client_id !== hint.clientId) {
    throw new InvalidInput('client_id does not match the audience of the id_token_hint');
  }
  const clientId = hint?.clientId ?? params.client_id;
  const app = clientId === undefined ? undefined : await deps.store.apps.getApp(clientId);
  if (clientId !== undefined && !app) throw new InvalidInput('Unknown client: no app has this client_id');
  const named = { app, hintUserId: hint?.userId, hintCurrent: hint?.current ?? false };
  const uri = params.post_logout_redirect_uri;
  if (uri === undefined) return { ...named, redirectTo: undefined };
  if (!app) throw new InvalidInput('A post_logout_redirect_uri needs an id_token_hint or a client_id that names the app');
  if (!app.postLogoutRedirectUris.includes(uri)) throw new InvalidInput('The post_logout_redirect_uri is not registered for this app');
  const target = new URL(uri);
  if (params.state !== undefined) target.searchParams.set('state', params.state);
  return { ...named, redirectTo: target.toString() };
}

/**
 * What the logout does, given who is signed in (`signedInUserId`):
 * - `end_now`: a valid hint that names the signed-in person, or anyone while nobody is signed in:
 *   no one else's session is at stake, and the hint, an ID token this service gave the app,
 *   vouches for the app's request. It goes on at once, to the post-logout address too, but only
 *   when the hint is current: resolveLogout has checked that the address is one the hint's app
 *   registered, and an expired hint vouches for nothing any more.
 * - Otherwise a page asks first, signed in or not, names the host the browser will be sent to,
 *   and only its answer redirects: a link alone signs nobody out, and sends no visitor on to
 *   whatever address an app registered (any signed-in person may register one;
 *   docs/oauth.md#signing-out-rp-initiated-logout): `confirm` ("Sign out?") for a signed-in
 *   person, `continue` for a visitor the app sends on.
 * - `end_signed_out`: signed out, with nowhere to send the browser: nothing to end and nothing to ask.
 */
export function logoutStep(request: LogoutRequest, signedInUserId: number | undefined): 'end_now' | 'confirm' | 'continue' | 'end_signed_out' {
  const hintNamesSession = request.hintUserId !== undefined && (signedInUserId === undefined || request.hintUserId === signedInUserId);
  if (hintNamesSession && (request.redirectTo === undefined || request.hintCurrent)) return 'end_now';
  if (signedInUserId !== undefined) return 'confirm';
  return request.redirectTo === undefined ? 'end_signed_out' : 'continue';
}
