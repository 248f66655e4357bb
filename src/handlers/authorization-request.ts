/**
 * The authorization request (RFC 6749 4.1.1, OpenID Connect Core 3.1.2.1), however it came: as the
 * query of `GET /oauth`, or as the form of `POST /oauth` (Core 3.1.2.1: the authorization
 * endpoint MUST support both). The consent page's decision, which also posts to `/oauth`, is
 * told apart by its `decision` field (src/handlers/postAuthorize.ts).
 */
import type Koa from 'koa';
import { canUseTwoFactors } from '../accounts/factors.js';
import { signInPolicy } from '../oauth/authorization-policy.js';
import { AUTHORIZE_FIELDS, checkGrant, checkRequestShape, grantErrorRedirect, resolveClient } from '../oauth/authorize.js';
import { issueCode } from '../oauth/codes.js';
import { useRememberedGrant } from '../oauth/grants.js';
import { parsePrompt, redirectWithIss, silentError } from '../oauth/prompt.js';
import { consentEmailNotice } from '../pages/email-pages.js';
import { consentPage } from '../pages/pages.js';
import { allowPageSources } from '../security/headers.js';
import { noteSignInBehindConsent, sessionAmr, sessionAuthTime, takeFreshSignIn } from '../sessions/session.js';
import type { operations } from '../../generated/api.js';
import type { AppDeps } from './types.js';
import { pageContext, redirect, redirectToSignIn, redirectToSignInAgain, sendHtml } from './web.js';

/** The request's parameters, as `GET /oauth` declares them. */
export type AuthorizationRequest = NonNullable<operations['getAuthorize']['parameters']['query']>;

/**
 * Answers an authorization request: an error page, a redirect to the client (a code, or an
 * error), a redirect to sign in, or the consent page. `address` is the request as a `GET /oauth`
 * address, where the person comes back to after signing in.
 */
export async function answerAuthorizationRequest(params: AuthorizationRequest, address: string, ctx: Koa.Context, deps: AppDeps): Promise<void> {
  const client = await resolveClient(deps.store, params);
  const publicUrl = deps.config.publicUrl;
  const prompt = parsePrompt(params.prompt);
  if ('error' in prompt) return redirect(ctx, redirectWithIss(client, { error: prompt.error, error_description: prompt.description }, params.state, publicUrl), 302);
  // A request this service never answers with a code is refused before anyone signs in.
  const shape = checkRequestShape(params);
  if (shape) return redirect(ctx, grantErrorRedirect(client, shape, params.state, publicUrl), 302);
  const page = await pageContext(ctx, deps);
  if (!page.user) {
    if (prompt.none) return redirect(ctx, silentError(client, 'login_required', params.state, publicUrl), 302);
    return redirectToSignIn(ctx, address, 302);
  }
  // The sign-in this request may have led to is taken here once (src/sessions/session.ts,
  // takeFreshSignIn), so the request goes on after it whatever it reached: no loop
  // (docs/oauth.md#how-the-person-signed-in-amr-and-acr).
  const now = deps.now();
  const authTime = sessionAuthTime(ctx) ?? now;
  const amr = sessionAmr(ctx);
  const freshSignIn = takeFreshSignIn(ctx, now, address);
  const userId = page.user.id;
  const verdict = await signInPolicy({
    prompt,
    maxAge: params.max_age,
    acrValues: params.acr_values,
    authTime,
    amr,
    now,
    freshSignIn,
    canUseTwoFactors: () => canUseTwoFactors(deps.store, userId),
  });
  if (verdict === 'login_required') return redirect(ctx, silentError(client, 'login_required', params.state, publicUrl), 302);
  if (verdict === 'sign_in_again') return redirectToSignInAgain(ctx, address, 302);
  const grant = checkGrant(params, client.app);
  if ('error' in grant) return redirect(ctx, grantErrorRedirect(client, grant, params.state, publicUrl), 302);

  // Remembered consent: an app already granted these scopes gets its code without the page.
  const ask = { userId: page.user.id, clientId: client.app.clientId, scopes: grant.scopes };
  if (!prompt.consent && (await useRememberedGrant(deps, ask))) {
    const { code } = await issueCode(deps, {
      ...ask,
      scope: grant.scopes.join(' '),
      redirectUri: client.redirectUri,
      codeChallenge: grant.codeChallenge,
      nonce: grant.nonce,
      authTime,
      amr,
    });
    return redirect(ctx, redirectWithIss(client, { code }, params.state, publicUrl), 302);
  }
  if (prompt.none) return redirect(ctx, silentError(client, 'consent_required', params.state, publicUrl), 302);

  const fields: Record<string, string> = {};
  for (const name of AUTHORIZE_FIELDS) if (params[name] !== undefined) fields[name] = params[name];
  // The decision is asked the same policy, with the same fields; the sign-in just taken must
  // count there too, and only the session can say so (takeSignInBehindConsent).
  if (freshSignIn) noteSignInBehindConsent(ctx, authTime, client.app.clientId);
  // Both buttons end in a redirect to the client: the form may go there.
  allowPageSources(ctx, { formAction: [new URL(client.redirectUri).origin] });
  // The same rule as where codes are issued (src/oauth/codes.ts), shown before the user tries.
  const emailNotice =
    grant.scopes.includes('email') && page.record?.emailVerifiedAt === null ? consentEmailNotice({ csrfToken: page.csrfToken, returnTo: address }) : undefined;
  sendHtml(
    ctx,
    consentPage({ ...page, user: page.user, appName: client.app.name, ownerName: client.owner.name, scopes: grant.scopes, fields, emailNotice }),
  );
}
