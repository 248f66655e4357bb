/**
 * Apps (OAuth clients) as their owners and operators register, change and remove them, and as the
 * JSON API shows them. Client authentication: client-authentication.ts; redirect URIs:
 * redirect-uris.ts; the origins that may read about an app: client-origins.ts.
 */
import { InvalidInput, NotFound } from '../domain/errors.js';
import type { components } from '../../generated/api.js';
import type { AppPatch, AppRecord } from '../domain/apps.js';
import type { Store } from '../store/types.js';
import { hashSecret, randomSecret } from '../security/secrets.js';
import { CLIENT_ID_BYTES, CLIENT_SECRET_BYTES } from './secrets.js';
import { CONTROL_CHARACTER } from '../domain/text.js';
import { appGrantTypes, DEFAULT_GRANT_TYPES } from './grant-types.js';
import { PUBLIC_APP_HAS_NO_SECRET } from './client-authentication.js';
import type { Deps } from './deps.js';
import { webAddressProblem } from './redirect-uris.js';

const MAX_REDIRECT_URIS = 10;
const MAX_POST_LOGOUT_REDIRECT_URIS = 10;

/** The authorization endpoint's refusal of a public client without PKCE (docs/oauth.md#public-clients). */
export const PUBLIC_CLIENT_NEEDS_PKCE = 'A public client must send a PKCE code_challenge (S256)';

function redirectUriProblem(uri: string): string | undefined {
  return webAddressProblem(uri, 'Redirect URI');
}

/** An app's name as typed: 1-64 characters once trimmed, no control characters; the trimmed name. */
function appName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > 64) throw new InvalidInput('App name must be 1 to 64 characters');
  if (CONTROL_CHARACTER.test(name)) throw new InvalidInput('App name must not contain control characters');
  return trimmed;
}

/** 1 to 10 redirect URIs, each one redirectUriProblem allows; without duplicates. */
function appRedirectUris(redirectUris: string[]): string[] {
  if (redirectUris.length < 1 || redirectUris.length > MAX_REDIRECT_URIS) {
    throw new InvalidInput(`An app needs 1 to ${MAX_REDIRECT_URIS} redirect URIs`);
  }
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new InvalidInput(problem);
  }
  return [...new Set(redirectUris)];
}

/** 0 to 10 post-logout redirect URIs under the same address rules; without duplicates. */
function appPostLogoutRedirectUris(postLogoutRedirectUris: string[]): string[] {
  if (postLogoutRedirectUris.length > MAX_POST_LOGOUT_REDIRECT_URIS) {
    throw new InvalidInput(`An app has at most ${MAX_POST_LOGOUT_REDIRECT_URIS} post-logout redirect URIs`);
  }
  for (const uri of postLogoutRedirectUris) {
    const problem = webAddressProblem(uri, 'Post-logout redirect URI');
    if (problem) throw new InvalidInput(problem);
  }
  return [...new Set(postLogoutRedirectUris)];
}

/**
 * Registers an app. A confidential app's client secret is returned once and only its hash is
 * kept; a public app gets no secret at all (secretHash null, clientSecret undefined).
 */
interface AppInput {
  ownerId: number;
  name: string;
  redirectUris: string[];
  public?: boolean;
  postLogoutRedirectUris?: string[];
  /** RFC 7591 `grant_types`; default `authorization_code` alone. */
  grantTypes?: readonly string[];
}
export async function registerOAuthApp(deps: Deps, input: AppInput & { public?: false }): Promise<{ app: AppRecord; clientSecret: string }>;
export async function registerOAuthApp(deps: Deps, input: AppInput): Promise<{ app: AppRecord; clientSecret: string | undefined }>;
export async function registerOAuthApp(deps: Deps, input: AppInput): Promise<{ app: AppRecord; clientSecret: string | undefined }> {
  const name = appName(input.name);
  const redirectUris = appRedirectUris(input.redirectUris);
  const postLogoutRedirectUris = appPostLogoutRedirectUris(input.postLogoutRedirectUris ?? []);
  const grantTypes = appGrantTypes(input.grantTypes ?? DEFAULT_GRANT_TYPES);
  if (!(await deps.store.users.getUser(input.ownerId))) throw new NotFound(`User ${input.ownerId} not found`);
  const isPublic = input.public === true;
  const clientSecret = isPublic ? undefined : randomSecret(CLIENT_SECRET_BYTES);
  const app: AppRecord = {
    clientId: randomSecret(CLIENT_ID_BYTES),
    secretHash: clientSecret === undefined ? null : hashSecret(clientSecret),
    public: isPublic,
    ownerId: input.ownerId,
    name,
    redirectUris,
    postLogoutRedirectUris,
    grantTypes,
    createdAt: deps.now(),
  };
  await deps.store.apps.createApp(app);
  return { app, clientSecret };
}

/**
 * Changes an app's name, redirect URIs and/or post-logout redirect URIs with registerOAuthApp's
 * rules; at least one must be given. The client id, the secret and `public` never change. Each
 * request reads the app again, so the new addresses hold from the next one (authorization,
 * end-session, a public app's CORS origins); a code keeps the redirect URI it was issued for. No
 * ownership check: the caller's (ownedApp), or the operator's CLI.
 */
export async function updateOAuthApp(
  store: Store,
  clientId: string,
  change: { name?: string; redirectUris?: string[]; postLogoutRedirectUris?: string[]; grantTypes?: readonly string[] },
): Promise<AppRecord> {
  if (Object.values(change).every((v) => v === undefined)) {
    throw new InvalidInput('Send at least one of name, redirect_uris, post_logout_redirect_uris and grant_types');
  }
  const patch: AppPatch = {};
  if (change.name !== undefined) patch.name = appName(change.name);
  if (change.redirectUris !== undefined) patch.redirectUris = appRedirectUris(change.redirectUris);
  if (change.postLogoutRedirectUris !== undefined) patch.postLogoutRedirectUris = appPostLogoutRedirectUris(change.postLogoutRedirectUris);
  if (change.grantTypes !== undefined) patch.grantTypes = appGrantTypes(change.grantTypes);
  if (!(await store.apps.updateApp(clientId, patch))) throw new NotFound(`App ${clientId} not found`);
  const app = await store.apps.getApp(clientId);
  // Only a deletion racing this gets here.
  if (!app) throw new NotFound(`App ${clientId} not found`);
  return app;
}

/** Replaces the app's secret; the old one stops working at once. A public app has none: 400. */
export async function rotateSecret(deps: Deps, clientId: string): Promise<string> {
  const app = await deps.store.apps.getApp(clientId);
  if (!app) throw new NotFound(`App ${clientId} not found`);
  if (app.public) throw new InvalidInput(PUBLIC_APP_HAS_NO_SECRET);
  const clientSecret = randomSecret(CLIENT_SECRET_BYTES);
  if (!(await deps.store.apps.setAppSecret(clientId, hashSecret(clientSecret)))) {
    throw new NotFound(`App ${clientId} not found`);
  }
  return clientSecret;
}

/** The app with this client id if `ownerId` owns it; 404 otherwise (never revealing others' apps). */
export async function ownedApp(store: Store, clientId: string, ownerId: number): Promise<AppRecord> {
  const app = await store.apps.getApp(clientId);
  if (!app || app.ownerId !== ownerId) throw new NotFound('App not found');
  return app;
}

/** Deletes an app with its codes and tokens. */
export async function deleteApp(store: Store, clientId: string): Promise<void> {
  if (!(await store.apps.deleteApp(clientId))) throw new NotFound(`App ${clientId} not found`);
}

/** An app as the JSON API shows it (never its secret hash). */
export function appView(app: AppRecord): components['schemas']['App'] {
  return {
    client_id: app.clientId,
    name: app.name,
    public: app.public,
    redirect_uris: app.redirectUris,
    post_logout_redirect_uris: app.postLogoutRedirectUris,
    grant_types: app.grantTypes,
    created_at: app.createdAt,
  };
}

