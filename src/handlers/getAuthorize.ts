import { AUTHORIZE_FIELDS, checkGrant, grantErrorRedirect, resolveClient, type AuthorizeParams } from '../oauth/authorize.js';
import { consentPage } from '../pages/pages.js';
import { allowPageSources } from '../security/headers.js';
import type { Handler } from './types.js';
import { pageContext, redirect, redirectToSignIn, sendHtml } from './web.js';

export const getAuthorize: Handler<'getAuthorize'> = async (input, ctx, deps) => {
  const params = input.query;
  const client = await resolveClient(deps.store, params);
  const page = await pageContext(ctx, deps);
  if (!page.user) return redirectToSignIn(ctx, `/oauth?${ctx.querystring}`, 302);
  const grant = checkGrant(params);
  if ('error' in grant) return redirect(ctx, grantErrorRedirect(client, grant, params.state, deps.config.publicUrl), 302);

  const fields: Record<string, string> = {};
  for (const name of AUTHORIZE_FIELDS) if (params[name] !== undefined) fields[name] = params[name];
  // Both buttons end in a redirect to the client: the form may go there.
  allowPageSources(ctx, { formAction: [new URL(client.redirectUri).origin] });
  sendHtml(
    ctx,
    consentPage({ ...page, user: page.user, appName: client.app.name, ownerName: client.owner.name, scopes: grant.scopes, fields }),
  );
};
