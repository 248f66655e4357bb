import { currentUser } from '../http/signed-in.js';
import { followEmailLink } from '../accounts/email/verification.js';
import { emailLinkFollowedPage } from '../pages/email-pages.js';
import { pageContext, sendHtml, withEmailLink } from '../http/pages.js';
import type { Handler } from '../http/handler.js';

export const getVerifyEmail: Handler<'getVerifyEmail'> = async (input, ctx, deps) => {
  const followed = await withEmailLink(ctx, deps, 'verify', async () => followEmailLink(deps, input.query.token, (await currentUser(ctx, deps))?.id));
  if (!followed) return;
  const page = await pageContext(ctx, deps);
  sendHtml(ctx, emailLinkFollowedPage({ ...page, ...followed }));
};
