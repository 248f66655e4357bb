/**
 * The pages and redirects of OpenID Connect RP-initiated logout (src/oauth/logout.ts decides):
 * GET and POST /oauth/logout, and the person's confirmation.
 */
import type Koa from 'koa';
import { LOGOUT_FIELDS, logoutStep, type LogoutParams, type LogoutRequest } from '../oauth/logout.js';
import { logoutConfirmPage, logoutContinuePage, signedOutPage } from '../pages/logout-pages.js';
import { allowPageSources } from '../security/headers.js';
import type { AppDeps } from './handler.js';
import { pageContext, redirect, sendHtml } from './pages.js';
import { signOutSession } from './signed-in.js';

/** Where the browser goes once the session is ended (or kept). */
export async function finishLogout(ctx: Koa.Context, deps: AppDeps, request: LogoutRequest, signedOut: boolean): Promise<void> {
  if (request.redirectTo !== undefined) return redirect(ctx, request.redirectTo, 303);
  const page = signedOut ? { user: undefined, csrfToken: '' } : await pageContext(ctx, deps);
  sendHtml(ctx, signedOutPage({ user: page.user, csrfToken: page.csrfToken, signedOut: page.user === undefined }));
}

/** Answers a logout request (`params`, resolved as `request`): ends the session at once, or asks first (logoutStep). */
export async function answerLogout(ctx: Koa.Context, deps: AppDeps, request: LogoutRequest, params: LogoutParams): Promise<void> {
  const page = await pageContext(ctx, deps);
  const step = logoutStep(request, page.user?.id);
  if (step === 'end_now') return finishLogout(ctx, deps, request, signOutSession(ctx, deps) || !page.user);
  const fields: Record<string, string> = {};
  for (const name of LOGOUT_FIELDS) if (params[name] !== undefined) fields[name] = params[name];
  const target = request.redirectTo === undefined ? undefined : new URL(request.redirectTo);
  // Every button ends in a redirect to the app: the form may go there.
  if (target) allowPageSources(ctx, { formAction: [target.origin] });
  if (step === 'confirm' && page.user) {
    return sendHtml(ctx, logoutConfirmPage({ user: page.user, csrfToken: page.csrfToken, appName: request.app?.name, destination: target?.host, fields }));
  }
  if (step === 'end_signed_out' || !target) {
    signOutSession(ctx, deps);
    return finishLogout(ctx, deps, request, true);
  }
  const form = await pageContext(ctx, deps, true);
  sendHtml(ctx, logoutContinuePage({ user: undefined, csrfToken: form.csrfToken, appName: request.app?.name, destination: target.host, fields }));
}
