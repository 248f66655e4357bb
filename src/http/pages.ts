/**
 * What the HTML pages' handlers share: the layout's context (the signed-in user, the CSRF token),
 * HTML responses, redirects (to sign in, and back after it: only to a path localPath keeps), a
 * form's action, and an email link's page.
 */
import type Koa from 'koa';
import { InvalidInput } from '../domain/errors.js';
import type { UserRecord } from '../domain/users.js';
import { emailLinkProblemPage } from '../pages/email-pages.js';
import type { PageUser } from '../pages/html.js';
import { suspensionNotice } from '../accounts/suspensions.js';
import { localPath, type LocalPath } from '../security/return-paths.js';
import { csrfToken, existingCsrfToken } from '../sessions/csrf.js';
import { suspendedSessionUserId } from '../sessions/session.js';
import { httpErrorOf } from './error-responses.js';
import type { AppDeps } from './handler.js';
import { currentUser } from './signed-in.js';

/**
 * What every page's layout needs. A signed-in session always has a CSRF secret; for a visitor
 * one is made (in a signed cookie, never a session row) only by pages with a form (`withForm`).
 */
export async function pageContext(
  ctx: Koa.Context,
  deps: AppDeps,
  withForm = false,
): Promise<{ user: PageUser | undefined; record: UserRecord | undefined; csrfToken: string; accountNotice?: string }> {
  const record = await currentUser(ctx, deps);
  const token = withForm || record ? csrfToken(ctx) : existingCsrfToken(ctx);
  const accountNotice = record ? undefined : await suspendedSessionNotice(ctx, deps);
  return { record, user: record && { id: record.id, name: record.name, modLevel: record.modLevel }, csrfToken: token, ...(accountNotice && { accountNotice }) };
}

/**
 * For a session a suspension signed out (src/sessions/session.ts suspendedUserId): why, said on
 * every page while the suspension lasts. Only this browser's own session carries it, so the reason
 * goes to the account's own person and nobody else; once the suspension ends, nothing is said.
 */
async function suspendedSessionNotice(ctx: Koa.Context, deps: AppDeps): Promise<string | undefined> {
  const id = suspendedSessionUserId(ctx);
  if (id === undefined) return undefined;
  const user = await deps.store.users.getUser(id);
  const notice = user && suspensionNotice(user, deps.now());
  return notice && `You were signed out of ${user.name}. ${notice}`;
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
 * To `returnTo` when it is a path on this service (localPath decides, wherever the value comes
 * from: a form, a query, the session), else to `fallback`.
 */
export function redirectBack(ctx: Koa.Context, deps: AppDeps, returnTo: unknown, fallback = '/account'): void {
  redirect(ctx, localPath(returnTo, deps.config.publicUrl) ?? fallback, 303);
}

/** `raw` as a path on this service to go back to, or undefined (src/security/return-paths.ts). */
export function returnPathOf(deps: AppDeps, raw: unknown): LocalPath | undefined {
  return localPath(raw, deps.config.publicUrl);
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
 * its reason and status instead of the generic error page. What only the form needs is read in
 * `showForm`, on failure: a success pays for nothing it does not show.
 */
export async function formAction(ctx: Koa.Context, action: () => Promise<void>, showForm: (error: string) => string | Promise<string>): Promise<void> {
  try {
    await action();
  } catch (err) {
    const expected = httpErrorOf(err);
    if (!expected || expected.status >= 500) throw err;
    ctx.set(expected.headers);
    sendHtml(ctx, await showForm(expected.message), expected.status);
  }
}

/**
 * The link pages' one answer to a link that cannot be used: runs `open` (what a link's page does
 * with it); when the link cannot be used (InvalidInput), answers 400 with the page that says why
 * and offers a new link, and resolves undefined.
 */
export async function withEmailLink<T>(ctx: Koa.Context, deps: AppDeps, purpose: 'reset' | 'verify', open: () => Promise<T>): Promise<T | undefined> {
  try {
    return await open();
  } catch (err) {
    if (!(err instanceof InvalidInput)) throw err;
    const page = await pageContext(ctx, deps);
    sendHtml(ctx, emailLinkProblemPage({ ...page, message: err.message, purpose }), 400);
    return undefined;
  }
}
