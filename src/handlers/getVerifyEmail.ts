import { currentUser } from '../http/signed-in.js';
import { followEmailLink } from '../accounts/email/verification.js';
import { emailLinkFollowedPage, signInToConfirmPage } from '../pages/email-pages.js';
import { pageContext, sendHtml, withEmailLink } from '../http/pages.js';
import type { Handler } from '../http/handler.js';

export const getVerifyEmail: Handler<'getVerifyEmail'> = async (input, ctx, deps) => {
  const followed = await withEmailLink(ctx, deps, 'verify', async () => followEmailLink(deps, input.query.token, (await currentUser(ctx, deps))?.id));
  if (!followed) return;
  const page = await pageContext(ctx, deps);
  if (followed.kind === 'sign_in_first') {
    // Back to this link after the sign-in (the request log keeps paths only, never the token).
    const back = encodeURIComponent(`/verify-email?token=${encodeURIComponent(input.query.token)}`);
    sendHtml(ctx, signInToConfirmPage({ ...page, email: followed.email, signIn: `/signin?${page.user ? 'prompt=login&' : ''}return_to=${back}` }));
    return;
  }
  sendHtml(ctx, emailLinkFollowedPage({ ...page, kind: followed.kind, email: followed.email, ...(followed.again ? { again: true } : {}) }));
};
