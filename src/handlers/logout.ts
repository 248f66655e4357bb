/** OpenID Connect RP-initiated logout: GET and POST /oauth/logout, and the person's confirmation. */
import type Koa from 'koa';
import { LOGOUT_FIELDS, resolveLogout, type LogoutParams, type LogoutRequest } from '../oauth/logout.js';
import { logoutConfirmPage, logoutContinuePage, signedOutPage } from '../pages/logout-pages.js';
import { allowPageSources } from '../security/headers.js';
import type { AppDeps, Handler } from './types.js';
import { pageContext, redirect, sendHtml, signOutSession } from './web.js';

function resolve(deps: AppDeps, params: LogoutParams): Promise<LogoutRequest> {
  return resolveLogout({ store: deps.store, keys: deps.keys, issuer: deps.config.publicUrl }, params);
}

/** Where the browser goes once the session is ended (or kept). */
async function finish(ctx: Koa.Context, deps: AppDeps, request: LogoutRequest, signedOut: boolean): Promise<void> {
  if (request.redirectTo !== undefined) return redirect(ctx, request.redirectTo, 303);
  const page = signedOut ? { user: undefined, csrfToken: '' } : await pageContext(ctx, deps);
  sendHtml(ctx, signedOutPage({ user: page.user, csrfToken: page.csrfToken, signedOut: page.user === undefined }));
}

async function logout(ctx: Koa.Context, deps: AppDeps, params: LogoutParams): Promise<void> {
  const request = await resolve(deps, params);
  const page = await pageContext(ctx, deps);
  // A valid hint that names the signed-in person, or anyone while nobody is signed in: no one
  // else's session is at stake, and the hint, an ID token this service gave the app, vouches
  // for the app's request. It goes on at once.
  if (request.hintUserId !== undefined && (!page.user || request.hintUserId === page.user.id)) {
    return finish(ctx, deps, request, signOutSession(ctx, deps) || !page.user);
  }
  // Otherwise a page asks first, signed in or not, and only its answer redirects: a link alone
  // signs nobody out, and sends no visitor on to whatever address an app registered (any
  // signed-in person may register one; docs/oauth.md#signing-out-rp-initiated-logout).
  const fields: Record<string, string> = {};
  for (const name of LOGOUT_FIELDS) if (params[name] !== undefined) fields[name] = params[name];
  const target = request.redirectTo === undefined ? undefined : new URL(request.redirectTo);
  // Every button ends in a redirect to the app: the form may go there.
  if (target) allowPageSources(ctx, { formAction: [target.origin] });
  if (page.user) return sendHtml(ctx, logoutConfirmPage({ user: page.user, csrfToken: page.csrfToken, appName: request.app?.name, fields }));
  // Signed out, with nowhere to send the browser: nothing to end and nothing to ask.
  if (!target) {
    signOutSession(ctx, deps);
    return finish(ctx, deps, request, true);
  }
  const form = await pageContext(ctx, deps, true);
  sendHtml(ctx, logoutContinuePage({ user: undefined, csrfToken: form.csrfToken, appName: request.app?.name, destination: target.host, fields }));
}

export const getLogout: Handler<'getLogout'> = async (input, ctx, deps) => logout(ctx, deps, input.query);

export const postLogout: Handler<'postLogout'> = async (input, ctx, deps) => logout(ctx, deps, input.body ?? {});

export const confirmLogout: Handler<'confirmLogout'> = async (input, ctx, deps) => {
  const { decision, ...params } = input.body;
  const request = await resolve(deps, params);
  const signedOut = decision === 'signout' && signOutSession(ctx, deps);
  await finish(ctx, deps, request, signedOut);
};
