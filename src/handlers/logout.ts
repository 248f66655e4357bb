/** OpenID Connect RP-initiated logout: GET and POST /oauth/logout, and the person's confirmation. */
import type Koa from 'koa';
import { LOGOUT_FIELDS, resolveLogout, type LogoutParams, type LogoutRequest } from '../oauth/logout.js';
import { logoutConfirmPage, signedOutPage } from '../pages/logout-pages.js';
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
  sendHtml(ctx, signedOutPage({ user: page.user, csrfToken: page.csrfToken, signedOut }));
}

async function logout(ctx: Koa.Context, deps: AppDeps, params: LogoutParams): Promise<void> {
  const request = await resolve(deps, params);
  const page = await pageContext(ctx, deps);
  // Signed out already, or the hint names the signed-in person: nobody else's session is at stake.
  if (!page.user || request.hintUserId === page.user.id) return finish(ctx, deps, request, signOutSession(ctx, deps) || !page.user);
  const fields: Record<string, string> = {};
  for (const name of LOGOUT_FIELDS) if (params[name] !== undefined) fields[name] = params[name];
  // Both buttons end in a redirect to the app: the form may go there.
  if (request.redirectTo !== undefined) allowPageSources(ctx, { formAction: [new URL(request.redirectTo).origin] });
  sendHtml(ctx, logoutConfirmPage({ user: page.user, csrfToken: page.csrfToken, appName: request.app?.name, fields }));
}

export const getLogout: Handler<'getLogout'> = async (input, ctx, deps) => logout(ctx, deps, input.query);

export const postLogout: Handler<'postLogout'> = async (input, ctx, deps) => logout(ctx, deps, input.body ?? {});

export const confirmLogout: Handler<'confirmLogout'> = async (input, ctx, deps) => {
  const { decision, ...params } = input.body;
  const request = await resolve(deps, params);
  const signedOut = decision === 'signout' && signOutSession(ctx, deps);
  await finish(ctx, deps, request, signedOut);
};
