import { hasSecondFactor } from '../accounts/second-factor.js';
import { AUTHORIZE_FIELDS, checkGrant, grantErrorRedirect, resolveClient } from '../oauth/authorize.js';
import { asksForTwoFactors } from '../oauth/claims.js';
import { issueCode } from '../oauth/codes.js';
import { useRememberedGrant } from '../oauth/grants.js';
import { parsePrompt, redirectWithIss, silentError } from '../oauth/prompt.js';
import { consentEmailNotice } from '../pages/email-pages.js';
import { consentPage } from '../pages/pages.js';
import { allowPageSources } from '../security/headers.js';
import { sessionAmr, sessionAuthTime, takeFreshSignIn } from '../sessions/session.js';
import type { AppDeps, Handler } from './types.js';
import { pageContext, redirect, redirectToSignIn, RETURN_TO_MAX, sendHtml } from './web.js';

/** The parameters getAuthorize declares, in the contract's order. */
const AUTHORIZE_QUERY = ['client_id', 'redirect_uri', 'scope', 'state', 'response_type', 'code_challenge', 'code_challenge_method', 'prompt', 'nonce', 'max_age', 'acr_values'] as const;

/**
 * This authorization request as the address to come back to after signing in: as it came, or,
 * when that is longer than RETURN_TO_MAX, with only its declared parameters (the others are
 * ignored anyway), which at their `maxLength` in the worst encoding always fit. Applied to its own
 * result it gives the same address, so the request that comes back is recognised (takeFreshSignIn).
 */
function authorizeAddress(querystring: string, params: Partial<Record<(typeof AUTHORIZE_QUERY)[number], string>>): string {
  const asSent = `/oauth?${querystring}`;
  if (asSent.length <= RETURN_TO_MAX) return asSent;
  const query = new URLSearchParams();
  for (const name of AUTHORIZE_QUERY) {
    const value = params[name];
    if (value !== undefined) query.append(name, value);
  }
  return `/oauth?${query}`;
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
  // OpenID Connect: prompt=login, a sign-in older than max_age, or acr_values asking for two
  // factors of a one-factor session whose person has a second factor, asks for a sign-in first.
  // The sign-in it leads to is taken here once (src/sessions/session.ts, takeFreshSignIn), so
  // the request goes on after it whatever it reached: no loop (docs/oauth.md#how-the-person-signed-in-amr-and-acr).
  const now = deps.now();
  const authTime = sessionAuthTime(ctx) ?? now;
  const amr = sessionAmr(ctx);
  const fresh = takeFreshSignIn(ctx, now, authorizeAddress(ctx.querystring, params));
  const tooOld = params.max_age !== undefined && now - authTime > Number(params.max_age) * 1000;
  const needsSecondFactor = !fresh && asksForTwoFactors(params.acr_values) && !amr.includes('mfa') && (await canUseTwoFactors(deps, page.user.id));
  if ((prompt.login || tooOld || needsSecondFactor) && !fresh) {
    if (prompt.none) return redirect(ctx, silentError(client, 'login_required', params.state, publicUrl), 302);
    return redirect(ctx, `/signin?prompt=login&return_to=${encodeURIComponent(authorizeAddress(ctx.querystring, params))}`, 302);
  }
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

/** Whether the person can sign in with two factors: an authenticator app switched on, or a passkey. */
async function canUseTwoFactors(deps: AppDeps, userId: number): Promise<boolean> {
  return (await hasSecondFactor(deps, userId)) || (await deps.store.listPasskeys(userId)).length > 0;
}
