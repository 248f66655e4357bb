/**
 * The signed-in user of a request, for the handlers and the `session` security scheme: who this
 * session is signed in as, signing a browser in and out, and what a request that requires a
 * signed-in user answers when the account is gone.
 */
import type Koa from 'koa';
import type { SignedIn } from '../accounts/sign-in.js';
import { recordSignIn } from '../accounts/sign-ins.js';
import { NotFound, SIGN_IN_FIRST, Unauthenticated } from '../domain/errors.js';
import type { UserRecord } from '../domain/users.js';
import type { LocalPath } from '../security/return-paths.js';
import { newCsrfSecret } from '../sessions/csrf.js';
import { endSession, noteActivity, readSession, sessionEndedSinceRead, startSecondStep, startUserSession } from '../sessions/session.js';
import { httpErrorOf } from './error-responses.js';
import type { AppDeps } from './handler.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The user of a request that changes something, once its body has arrived: signed out when the
 * session it read was ended meanwhile (docs/account.md#what-each-security-event-ends).
 */
async function liveUser(ctx: Koa.Context, deps: AppDeps, id: number): Promise<UserRecord | undefined> {
  if (await sessionEndedSinceRead(ctx, deps.store, deps.now())) return undefined;
  return deps.store.users.getUser(id);
}

/**
 * The user this session is signed in as, if any (a deleted user counts as signed out). Read once
 * per request and session user: a page's optional `session` scheme and the page itself both ask.
 */
export async function currentUser(ctx: Koa.Context, deps: AppDeps): Promise<UserRecord | undefined> {
  const id = readSession(ctx).userId;
  if (id === undefined) return undefined;
  const known = ctx.state.currentUser;
  if (known?.id === id) return known.record;
  noteActivity(ctx, deps.now());
  const record = SAFE_METHODS.has(ctx.method) ? deps.store.users.getUser(id) : liveUser(ctx, deps, id);
  ctx.state.currentUser = { id, record };
  return record;
}

/**
 * Signs this browser in as the person a sign-in admitted (src/accounts/sign-in.ts: who, and how),
 * in a new session, and records it: an entry of the user's sign-in history (the account page)
 * and the audit line `sign_in`. `returnTo`, where the browser goes next, is remembered as what
 * this sign-in was for (takeFreshSignIn in src/oauth/session-state.ts).
 */
export async function beginSignedInSession(ctx: Koa.Context, deps: AppDeps, signedIn: SignedIn, returnTo: LocalPath | undefined): Promise<void> {
  const userId = signedIn.user.id;
  await startUserSession(ctx, userId, newCsrfSecret(), deps.now(), returnTo, signedIn.amr, signedIn.authTime);
  const client = { ip: ctx.ip, userAgent: ctx.get('User-Agent') };
  await recordSignIn(deps, userId, { ...client, upstream: signedIn.upstream?.name ?? null });
  deps.audit('sign_in', { userId, ...client, ...(signedIn.upstream ? { upstream: signedIn.upstream.slug } : {}) });
}

/**
 * A right password (or an upstream's sign-in: `first` says how) of an account that owes a second
 * step (src/accounts/sign-in.ts): this session remembers the step owed (src/sessions/session.ts
 * startSecondStep) without signing in.
 */
export async function beginSecondStep(
  ctx: Koa.Context,
  deps: AppDeps,
  userId: number,
  returnTo: LocalPath | undefined,
  first?: { amr: readonly string[]; upstream: { slug: string; name: string }; authTime?: number | undefined },
): Promise<void> {
  await startSecondStep(ctx, {
    userId,
    at: deps.now(),
    ...(returnTo === undefined ? {} : { returnTo }),
    ...(first === undefined ? {} : { amr: [...first.amr], upstream: first.upstream }),
    ...(first?.authTime === undefined ? {} : { authTime: first.authTime }),
  });
}

/** The user the `session` security handler resolved; only on operations that declare it. */
export function signedInUser(ctx: Koa.Context): UserRecord {
  const user = ctx.state.user;
  if (!user) throw new Error('operation does not declare the session security scheme');
  return user;
}

/**
 * The failure of an operation that requires a signed-in user, as that user now sees it. The
 * account may have been deleted (in another tab, by an operator) after the session was checked:
 * the session went with it, so a "not found" for the account, or a write refused for a row that
 * no longer exists, answers what any request on that session now gets, 401 "Sign in first".
 * Any other failure, and any failure of a user who still exists, is thrown as it was.
 */
export async function signedOutIfAccountGone(err: unknown, userId: number, deps: AppDeps): Promise<never> {
  if (err instanceof NotFound || httpErrorOf(err) === undefined) {
    const gone = await deps.store.users.getUser(userId).then((user) => !user, () => false);
    if (gone) throw new Unauthenticated(SIGN_IN_FIRST);
  }
  throw err;
}

/**
 * A change to the signed-in user's own account that answers with the account as the change left
 * it: an account deleted after the change also answers 401 "Sign in first" (a failure during the
 * change is signedOutIfAccountGone's, for every operation that requires a signed-in user).
 */
export async function changeOwnAccount(deps: AppDeps, userId: number, change: () => Promise<unknown>): Promise<UserRecord> {
  await change();
  const user = await deps.store.users.getUser(userId);
  if (!user) throw new Unauthenticated(SIGN_IN_FIRST);
  return user;
}

/**
 * Ends this browser's session and records it (the audit line `sign_out`): the sign-out button and
 * OpenID Connect's RP-initiated logout alike. Returns whether a signed-in session ended.
 */
export function signOutSession(ctx: Koa.Context, deps: AppDeps): boolean {
  const userId = readSession(ctx).userId;
  endSession(ctx);
  if (userId === undefined) return false;
  deps.audit('sign_out', { userId, ip: ctx.ip });
  return true;
}
