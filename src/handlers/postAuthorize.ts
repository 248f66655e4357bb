import { canUseTwoFactors } from '../accounts/factors.js';
import { Forbidden } from '../domain/errors.js';
import { signInPolicy } from '../oauth/authorization-policy.js';
import { AUTHORIZE_FIELDS, authorizeAddressOf, checkGrant, checkRequestShape, decide, grantErrorRedirect, resolveClient } from '../oauth/authorize.js';
import { recordConsent } from '../oauth/grants.js';
import { parsePrompt, redirectWithIss, silentError } from '../oauth/prompt.js';
import { INVALID_CSRF_TOKEN, sentValidCsrfToken } from '../sessions/csrf.js';
import { sessionAmr, sessionAuthTime, takeSignInBehindConsent } from '../sessions/session.js';
import { answerAuthorizationRequest, type AuthorizationRequest } from './authorization-request.js';
import type { Handler } from './types.js';
import { currentUser, redirect, redirectToSignIn, redirectToSignInAgain } from './web.js';

/**
 * `POST /oauth` is two things (docs/oauth.md#the-authorization-endpoint-get-and-post): with a
 * `decision`, the consent page's form, which needs its CSRF token; without one, an authorization
 * request sent as a form (OpenID Connect Core 3.1.2.1), answered exactly as `GET /oauth` answers
 * the same parameters. Only the consent form carries `decision`, and a form posted from another
 * site without it can do no more than a link to `GET /oauth` can.
 */
export const postAuthorize: Handler<'postAuthorize'> = async (input, ctx, deps) => {
  const form = input.body;
  if (form.decision === undefined) {
    const params: AuthorizationRequest = { request: form.request, request_uri: form.request_uri };
    for (const name of AUTHORIZE_FIELDS) params[name] = form[name];
    return answerAuthorizationRequest(params, authorizeAddressOf(params), ctx, deps);
  }
  if (!sentValidCsrfToken(ctx, form)) throw new Forbidden(INVALID_CSRF_TOKEN);
  const decision = form.decision;
  const client = await resolveClient(deps.store, form);
  const publicUrl = deps.config.publicUrl;
  const user = await currentUser(ctx, deps);
  if (!user) return redirectToSignIn(ctx, authorizeAddressOf(form), 302);
  const prompt = parsePrompt(form.prompt);
  if ('error' in prompt) return redirect(ctx, redirectWithIss(client, { error: prompt.error, error_description: prompt.description }, form.state, publicUrl), 302);
  const now = deps.now();
  const authTime = sessionAuthTime(ctx) ?? now;
  const amr = sessionAmr(ctx);
  // Authorize asks the sign-in policy GET /oauth asked before the page, with the fields the page
  // carried: whoever holds the session and its CSRF token gets no code by posting here directly
  // with prompt=login, max_age or acr_values. The sign-in GET took as fresh counts only through
  // what GET noted in the session (docs/oauth.md#the-sign-in-policy-of-oauth).
  // Cancel is never held back: declining needs no proof of who one is.
  if (decision === 'authorize') {
    const verdict = await signInPolicy({
      prompt,
      maxAge: form.max_age,
      acrValues: form.acr_values,
      authTime,
      amr,
      now,
      freshSignIn: takeSignInBehindConsent(ctx, now, client.app.clientId),
      canUseTwoFactors: () => canUseTwoFactors(deps.store, user.id),
    });
    if (verdict === 'login_required') return redirect(ctx, silentError(client, 'login_required', form.state, publicUrl), 302);
    if (verdict === 'sign_in_again') return redirectToSignInAgain(ctx, authorizeAddressOf(form), 302);
  }
  // The fields GET /oauth carried to the page, checked as GET checked them before sign-in.
  const grant = checkRequestShape(form) ?? checkGrant(form, client.app);
  if ('error' in grant) return redirect(ctx, grantErrorRedirect(client, grant, form.state, publicUrl), 302);
  const location = await decide(deps, { client, grant, userId: user.id, authTime, amr, state: form.state, decision, issuer: publicUrl });
  if (decision === 'authorize') {
    await recordConsent(deps, { userId: user.id, clientId: client.app.clientId, scopes: grant.scopes, flow: 'traditional' });
  }
  redirect(ctx, location, 302);
};
