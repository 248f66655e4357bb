import { resetLinkOwner } from '../accounts/email/reset.js';
import { resetPasswordPage } from '../pages/email-pages.js';
import { pageContext, sendHtml, withEmailLink } from '../http/pages.js';
import type { Handler } from '../http/handler.js';

export const getResetPassword: Handler<'getResetPassword'> = async (input, ctx, deps) => {
  const name = await withEmailLink(ctx, deps, 'reset', () => resetLinkOwner(deps, input.query.token));
  if (name === undefined) return;
  const page = await pageContext(ctx, deps, true);
  sendHtml(ctx, resetPasswordPage({ ...page, token: input.query.token, name }));
};
