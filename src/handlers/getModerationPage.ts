import { moderationPage } from '../pages/moderation.js';
import { errorPage } from '../pages/pages.js';
import type { Handler } from '../http/handler.js';
import { pageContext, redirectToSignIn, sendHtml } from '../http/pages.js';

export const getModerationPage: Handler<'getModerationPage'> = async (input, ctx, deps) => {
  const openUser = input.query.user === undefined ? undefined : Number(input.query.user);
  const page = await pageContext(ctx, deps);
  if (!page.user || !page.record) return redirectToSignIn(ctx, openUser ? `/moderation?user=${openUser}` : '/moderation', 303);
  if (page.record.modLevel < 1) return sendHtml(ctx, errorPage({ ...page, status: 403, message: 'Only moderators may see this page' }), 403);
  sendHtml(ctx, moderationPage({ ...page, user: page.user, modLevel: page.record.modLevel, openUser }));
};
