import { renderAccountPage } from '../http/account-page.js';
import type { Handler } from '../http/handler.js';
import { pageContext, redirectToSignIn, sendHtml } from '../http/pages.js';

export const getAccountPage: Handler<'getAccountPage'> = async (_input, ctx, deps) => {
  const page = await pageContext(ctx, deps);
  if (!page.user || !page.record) return redirectToSignIn(ctx, '/account', 303);
  sendHtml(ctx, await renderAccountPage(ctx, deps, page.record));
};
