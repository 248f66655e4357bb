/** What the page and session handlers share: the signed-in user, HTML responses, redirects. */
import type Koa from 'koa';
import { recordSignIn } from '../accounts/sign-ins.js';
import { NotFound, SIGN_IN_FIRST, Unauthenticated } from '../domain/errors.js';
import { httpErrorOf } from '../http/error-responses.js';
import { refuseSuspended } from '../moderation/moderation.js';
import type { PageUser } from '../pages/html.js';
import { csrfToken, existingCsrfToken, newCsrfSecret } from '../sessions/csrf.js';
import { endSession, noteActivity, readSession, startUserSession } from '../sessions/session.js';
import type { UserRecord } from '../store/types.js';
import type { AppDeps } from './types.js';

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
  const record = deps.store.getUser(id);
  ctx.state.currentUser = { id, record };
  return record;
}

/**
 * Signs this browser in as `userId` (a new session) and records it: an entry of the user's
 * sign-in history (the account page) and the audit line `event`. Sign-up signs in too.
 * `returnTo`, where the browser goes next, is remembered as what this sign-in was for
 * (takeFreshSignIn in src/sessions/session.ts). A suspended account is refused (403, with the
 * reason and the end: docs/moderation.md#suspension).
 */
export async function beginSignedInSession(
  ctx: Koa.Context,
  deps: AppDeps,
  user: Pick<UserRecord, 'id' | 'suspension'>,
  event: 'sign_in' | 'sign_up',
  returnTo?: string,
  amr: readonly string[] = ['pwd'],
): Promise<void> {
  // Every sign-in (password, passkey, second step) ends here: a suspended account gets no session.
  refuseSuspended(user, deps.now());
  const userId = user.id;
  await startUserSession(ctx, userId, newCsrfSecret(), deps.now(), returnTo, amr);
  const client = { ip: ctx.ip, userAgent: ctx.get('User-Agent') };
  await recordSignIn(deps, userId, client);
  deps.audit(event, { userId, ...client });
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
    const gone = await deps.store.getUser(userId).then((user) => !user, () => false);
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
  const user = await deps.store.getUser(userId);
  if (!user) throw new Unauthenticated(SIGN_IN_FIRST);
  return user;
}

/**
 * What every page's layout needs. A signed-in session always has a CSRF secret; for a visitor
 * one is made (in a signed cookie, never a session row) only by pages with a form (`withForm`).
 */
export async function pageContext(
  ctx: Koa.Context,
  deps: AppDeps,
  withForm = false,
): Promise<{ user: PageUser | undefined; record: UserRecord | undefined; csrfToken: string }> {
  const record = await currentUser(ctx, deps);
  const token = withForm || record ? csrfToken(ctx) : existingCsrfToken(ctx);
  return { record, user: record && { id: record.id, name: record.name, modLevel: record.modLevel }, csrfToken: token };
}

export function sendHtml(ctx: Koa.Context, page: string, status = 200): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  // Pages carry CSRF tokens and personal data: never cached.
  ctx.set('Cache-Control', 'no-store');
  ctx.body = page;
}

export function redirect(ctx: Koa.Context, location: string, status: 302 | 303): void {
  ctx.status = status;
  ctx.redirect(location);
}

/**
 * The longest `return_to` followed: it holds the longest authorization request the contract allows
 * (authorizeAddress in src/handlers/getAuthorize.ts); a longer one is ignored, like any other
 * unusable one. The sign-in address that carries it still fits MAX_REQUEST_TARGET
 * (src/http/client-errors.ts; test/request-limits.test.ts checks both).
 */
export const RETURN_TO_MAX = 64 * 1024;

/** Only paths on this service, and not over RETURN_TO_MAX, are followed after sign-in (no open redirect). */
export function safeReturnTo(raw: unknown): string | undefined {
  if (typeof raw !== 'string' || raw.length > RETURN_TO_MAX || !raw.startsWith('/') || raw.startsWith('//') || raw.includes('\\')) return undefined;
  return raw;
}

export function redirectToSignIn(ctx: Koa.Context, returnTo: string, status: 302 | 303): void {
  redirect(ctx, `/signin?return_to=${encodeURIComponent(returnTo)}`, status);
}

/** To the sign-in form even when signed in (`prompt=login`), then back to `returnTo`. */
export function redirectToSignInAgain(ctx: Koa.Context, returnTo: string, status: 302 | 303): void {
  redirect(ctx, `/signin?prompt=login&return_to=${encodeURIComponent(returnTo)}`, status);
}

/**
 * Runs a form's action; an expected failure (below 500) shows the form again with
 * its reason and status instead of the generic error page.
 */
export async function formAction(ctx: Koa.Context, action: () => Promise<void>, showForm: (error: string) => string): Promise<void> {
  try {
    await action();
  } catch (err) {
    const expected = httpErrorOf(err);
    if (!expected || expected.status >= 500) throw err;
    ctx.set(expected.headers);
    sendHtml(ctx, showForm(expected.message), expected.status);
  }
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
