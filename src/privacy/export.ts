/**
 * "Download my data": everything the service keeps about a user in one document. Secrets stay
 * out (password hash, client secrets, codes, tokens, session cookies); sessions appear by their
 * public id, the sign-in history as the account page shows it, passkeys by name and dates (no key, no credential id), the authenticator app by
 * whether it is on, since when and how many recovery codes are left (no seed, no code), moderators'
 * actions on the account without who took them or who reported it (docs/moderation.md#the-record),
 * the accounts at upstream identity providers linked to it (never an upstream token: none is kept).
 */
import type { components } from '../../generated/api.js';
import { SIGN_IN_FIRST, Unauthenticated } from '../domain/errors.js';
import type { SignInRecord } from '../domain/sign-ins.js';
import { identityView } from '../upstreams/identities.js';
import { authenticatorAppView } from '../accounts/factors.js';
import { listPasskeys } from '../accounts/passkeys.js';
import { allSignIns } from '../accounts/sign-ins.js';
import { gameView } from '../games/games.js';
import { appView } from '../oauth/clients.js';
import { accountModeration } from '../moderation/moderation.js';
import { listGrants } from '../oauth/consent.js';
import { listUserSessions } from '../sessions/user-sessions.js';
import type { Store } from '../store/types.js';
import { toPublicUser } from '../accounts/users.js';

type AccountExport = components['schemas']['AccountExport'];
type SignIn = components['schemas']['SignIn'];

function signInView(s: SignInRecord): SignIn {
  return { at: s.at, ip: s.ip, user_agent: s.userAgent, ...(s.upstream === null ? {} : { upstream: s.upstream }) };
}

export async function exportAccount(deps: { store: Store; now: () => number }, userId: number, currentSession: string | undefined): Promise<AccountExport> {
  const user = await deps.store.users.getUser(userId);
  if (!user) throw new Unauthenticated(SIGN_IN_FIRST);
  const [apps, games, grants, sessions, signIns, passkeys, authenticatorApp, moderation, identities] = await Promise.all([
    deps.store.apps.listAppsByOwner(userId),
    deps.store.games.listGamesByAuthor(userId),
    listGrants(deps.store, userId),
    listUserSessions(deps, userId, currentSession),
    allSignIns(deps.store, userId),
    listPasskeys(deps.store, userId),
    authenticatorAppView(deps.store, userId),
    accountModeration(deps, user),
    deps.store.upstreamIdentities.listUpstreamIdentities(userId),
  ]);
  return {
    exported_at: deps.now(),
    user: toPublicUser(user),
    email: user.email,
    created_at: user.createdAt,
    apps: apps.map(appView),
    games: games.map(gameView),
    grants,
    sessions,
    sign_ins: signIns.map(signInView),
    passkeys,
    authenticator_app: authenticatorApp,
    ...moderation,
    upstream_identities: identities.map(identityView),
  };
}
