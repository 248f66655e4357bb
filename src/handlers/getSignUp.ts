import { signUpPage } from '../pages/pages.js';
import type { Handler } from '../http/handler.js';
import { pageContext, redirect, returnPathOf, sendHtml } from '../http/pages.js';
import { offerUpstreams } from '../http/upstream-sign-in.js';

export const getSignUp: Handler<'getSignUp'> = async (input, ctx, deps) => {
  const returnTo = returnPathOf(deps, input.query.return_to);
  const page = await pageContext(ctx, deps, true);
  if (page.user) return redirect(ctx, returnTo ?? '/account', 303);
  sendHtml(ctx, signUpPage({ ...page, returnTo, upstreams: await offerUpstreams(ctx, deps) }));
};
