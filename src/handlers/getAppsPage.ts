import { appsPage } from '../pages/pages.js';
import type { Handler } from '../http/handler.js';
import { pageContext, redirectToSignIn, sendHtml } from '../http/pages.js';

export const getAppsPage: Handler<'getAppsPage'> = async (_input, ctx, deps) => {
  const page = await pageContext(ctx, deps);
  if (!page.user) return redirectToSignIn(ctx, '/apps', 303);
  sendHtml(ctx, appsPage({ ...page, user: page.user }));
};
