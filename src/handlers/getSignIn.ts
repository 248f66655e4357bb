import { signInPage } from '../pages/pages.js';
import type { Handler } from '../http/handler.js';
import { pageContext, redirect, returnPathOf, sendHtml } from '../http/pages.js';
import { offerUpstreams } from '../http/upstream-sign-in.js';

export const getSignIn: Handler<'getSignIn'> = async (input, ctx, deps) => {
  const returnTo = returnPathOf(deps, input.query.return_to);
  const page = await pageContext(ctx, deps, true);
  // prompt=login: an app asked for a fresh sign-in (src/handlers/getAuthorize.ts), so the form
  // is shown to a signed-in person too.
  if (page.user && input.query.prompt !== 'login') return redirect(ctx, returnTo ?? '/account', 303);
  sendHtml(ctx, signInPage({ ...page, returnTo, upstreams: await offerUpstreams(ctx, deps) }));
};
