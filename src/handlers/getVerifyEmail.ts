import { followEmailLink } from '../accounts/email/verification.js';
import { emailLinkFollowedPage } from '../pages/email-pages.js';
import { pageContext, sendHtml, withEmailLink } from '../http/pages.js';
import type { Handler } from '../http/handler.js';

export const getVerifyEmail: Handler<'getVerifyEmail'> = async (input, ctx, deps) => {
  const followed = await withEmailLink(ctx, deps, 'verify', () => followEmailLink(deps, input.query.token));
  if (!followed) return;
  const page = await pageContext(ctx, deps);
  sendHtml(ctx, emailLinkFollowedPage({ ...page, ...followed }));
};
