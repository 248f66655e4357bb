import { canUseTwoFactors } from '../accounts/factors.js';
import { signInPolicy } from '../oauth/authorization-policy.js';
import { AUTHORIZE_FIELDS, authorizeAddressOf, checkGrant, grantErrorRedirect, resolveClient } from '../oauth/authorize.js';
import { issueCode } from '../oauth/codes.js';
import { useRememberedGrant } from '../oauth/grants.js';
import { parsePrompt, redirectWithIss, silentError } from '../oauth/prompt.js';
import { consentEmailNotice } from '../pages/email-pages.js';
import { consentPage } from '../pages/pages.js';
import { allowPageSources } from '../security/headers.js';
import { noteSignInBehindConsent, sessionAmr, sessionAuthTime, takeFreshSignIn } from '../sessions/session.js';
import type { Handler } from './types.js';
import { pageContext, redirect, redirectToSignIn, redirectToSignInAgain, RETURN_TO_MAX, sendHtml } from './web.js';

/**
 * This authorization request as the address to come back to after signing in: as it came, or,
 * when that is longer than RETURN_TO_MAX, with only its declared parameters (the others are
 * ignored anyway), which at their `maxLength` in the worst encoding always fit. Applied to its own
 * result it gives the same address, so the request that comes back is recognised (takeFreshSignIn).
 */
function authorizeAddress(querystring: string, params: Parameters<typeof authorizeAddressOf>[0]): string {
  const asSent = `/oauth?${querystring}`;
  return asSent.length <= RETURN_TO_MAX ? asSent : authorizeAddressOf(params);
}

export const getAuthorize: Handler<'getAuthorize'> = async (input, ctx, deps) => {
  const params = input.query;
  const client = await resolveClient(deps.store, params);
  const publicUrl = deps.config.publicUrl;
  const prompt = parsePrompt(params.prompt);
  if ('error' in prompt) return redirect(ctx, redirectWithIss(client, { error: prompt.error, error_description: prompt.description }, params.state, publicUrl), 302);
  const page = await pageContext(ctx, deps);
  if (!page.user) {
    if (prompt.none) return redirect(ctx, silentError(client, 'login_required', params.state, publicUrl), 302);
    return redirectToSignIn(ctx, authorizeAddress(ctx.querystring, params), 302);
  }
  // The sign-in this request may have led to is taken here once (src/sessions/session.ts,
  // takeFreshSignIn), so the request goes on after it whatever it reached: no loop
  // (docs/oauth.md#how-the-person-signed-in-amr-and-acr).
  const now = deps.now();
  const authTime = sessionAuthTime(ctx) ?? now;
  const amr = sessionAmr(ctx);
  const address = authorizeAddress(ctx.querystring, params);
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
  if ('error' in grant) return redirect(ctx, grantErrorRedirect(client, grant, params.state, deps.config.publicUrl), 302);

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
    grant.scopes.includes('email') && page.record?.emailVerifiedAt === null
      ? consentEmailNotice({ csrfToken: page.csrfToken, returnTo: `/oauth?${ctx.querystring}` })
      : undefined;
  sendHtml(
    ctx,
    consentPage({ ...page, user: page.user, appName: client.app.name, ownerName: client.owner.name, scopes: grant.scopes, fields, emailNotice }),
  );
};
