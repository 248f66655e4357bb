import { recentSignIns } from '../accounts/sign-ins.js';
import { accountPage } from '../pages/pages.js';
import type { Handler } from './types.js';
import { pageContext, redirectToSignIn, sendHtml } from './web.js';

export const getAccountPage: Handler<'getAccountPage'> = async (_input, ctx, deps) => {
  const page = await pageContext(ctx, deps);
  if (!page.user) return redirectToSignIn(ctx, '/account', 303);
  const signIns = await recentSignIns(deps.store, page.user.id);
  sendHtml(ctx, accountPage({ ...page, user: page.user, signIns }));
};
