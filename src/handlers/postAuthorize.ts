import { AUTHORIZE_FIELDS, checkGrant, decide, grantErrorRedirect, resolveClient } from '../oauth/authorize.js';
import { recordConsent } from '../oauth/grants.js';
import { sessionAmr, sessionAuthTime } from '../sessions/session.js';
import type { Handler } from './types.js';
import { currentUser, redirect, redirectToSignIn } from './web.js';

export const postAuthorize: Handler<'postAuthorize'> = async (input, ctx, deps) => {
  const form = input.body;
  const client = await resolveClient(deps.store, form);
  const user = await currentUser(ctx, deps);
  if (!user) {
    const query = new URLSearchParams();
    for (const name of AUTHORIZE_FIELDS) if (form[name] !== undefined) query.set(name, form[name]);
    return redirectToSignIn(ctx, `/oauth?${query.toString()}`, 302);
  }
  const grant = checkGrant(form, client.app);
  if ('error' in grant) return redirect(ctx, grantErrorRedirect(client, grant, form.state, deps.config.publicUrl), 302);
  const authTime = sessionAuthTime(ctx) ?? deps.now();
  const amr = sessionAmr(ctx);
  const location = await decide(deps, { client, grant, userId: user.id, authTime, amr, state: form.state, decision: form.decision, issuer: deps.config.publicUrl });
  if (form.decision === 'authorize') {
    await recordConsent(deps, { userId: user.id, clientId: client.app.clientId, scopes: grant.scopes, flow: 'traditional' });
  }
  redirect(ctx, location, 302);
};
