/**
 * The HTTP side of the authorization endpoint (GET and POST /oauth; src/oauth/authorization-policy.ts
 * decides): the session as the decision reads it, and its answer as a redirect or the consent page.
 */
import type Koa from 'koa';
import type { AuthorizationAnswer, AuthorizationSession, ConsentSession } from '../oauth/authorization-policy.js';
import { consentEmailNotice } from '../pages/email-pages.js';
import { consentPage } from '../pages/pages.js';
import { allowPageSources } from '../security/headers.js';
import { noteSignInBehindConsent, takeFreshSignIn, takeSignInBehindConsent } from '../oauth/session-state.js';
import { sessionAmr, sessionAuthTime } from '../sessions/session.js';
import type { AppDeps } from './handler.js';
import { pageContext, redirect, redirectToSignIn, redirectToSignInAgain, sendHtml } from './pages.js';

/**
 * This request's session as the authorization decision reads it. `address`: the request as a
 * `GET /oauth` address, the one a sign-in made on the way to it was for (takeFreshSignIn).
 */
export function authorizationSession(ctx: Koa.Context, deps: AppDeps, address: string): AuthorizationSession & ConsentSession {
  return {
    signedInUser: async () => (await pageContext(ctx, deps)).record,
    authTime: () => sessionAuthTime(ctx),
    amr: () => sessionAmr(ctx),
    takeFreshSignIn: (now) => takeFreshSignIn(ctx, now, address),
    noteSignInBehindConsent: (clientId) => noteSignInBehindConsent(ctx, clientId),
    takeSignInBehindConsent: (now, clientId) => takeSignInBehindConsent(ctx, now, clientId),
  };
}

/** Sends the decision's answer: a redirect (302), or the consent page. `address` as for authorizationSession. */
export async function sendAuthorizationAnswer(ctx: Koa.Context, deps: AppDeps, answer: AuthorizationAnswer, address: string): Promise<void> {
  if (answer.to === 'client') return redirect(ctx, answer.location, 302);
  if (answer.to === 'sign_in') return redirectToSignIn(ctx, address, 302);
  if (answer.to === 'sign_in_again') return redirectToSignInAgain(ctx, address, 302);
  // Both buttons end in a redirect to the client: the form may go there.
  allowPageSources(ctx, { formAction: [new URL(answer.client.redirectUri).origin] });
  const page = await pageContext(ctx, deps);
  if (!page.user) throw new Error('the consent page is shown only to a signed-in person');
  const emailNotice = answer.emailNotVerified ? consentEmailNotice({ csrfToken: page.csrfToken, returnTo: address }) : undefined;
  const { client, scopes, fields } = answer;
  sendHtml(
    ctx,
    consentPage({ ...page, user: page.user, appName: client.app.name, ownerName: client.owner.name, scopes, fields, emailNotice, redirectUri: client.redirectUri, address }),
  );
}
