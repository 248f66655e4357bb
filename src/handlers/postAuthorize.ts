import { canUseTwoFactors } from '../accounts/factors.js';
import { signInPolicy } from '../oauth/authorization-policy.js';
import { authorizeAddressOf, checkGrant, decide, grantErrorRedirect, resolveClient } from '../oauth/authorize.js';
import { recordConsent } from '../oauth/grants.js';
import { parsePrompt, redirectWithIss, silentError } from '../oauth/prompt.js';
import { sessionAmr, sessionAuthTime, takeSignInBehindConsent } from '../sessions/session.js';
import type { Handler } from './types.js';
import { currentUser, redirect, redirectToSignIn, redirectToSignInAgain } from './web.js';

export const postAuthorize: Handler<'postAuthorize'> = async (input, ctx, deps) => {
  const form = input.body;
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
  if (form.decision === 'authorize') {
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
  const grant = checkGrant(form, client.app);
  if ('error' in grant) return redirect(ctx, grantErrorRedirect(client, grant, form.state, publicUrl), 302);
  const location = await decide(deps, { client, grant, userId: user.id, authTime, amr, state: form.state, decision: form.decision, issuer: publicUrl });
  if (form.decision === 'authorize') {
    await recordConsent(deps, { userId: user.id, clientId: client.app.clientId, scopes: grant.scopes, flow: 'traditional' });
  }
  redirect(ctx, location, 302);
};
