import { forgotPasswordPage } from '../pages/email-pages.js';
import type { Handler } from '../http/handler.js';
import { pageContext, sendHtml } from '../http/pages.js';

export const getForgotPassword: Handler<'getForgotPassword'> = async (_input, ctx, deps) => {
  const page = await pageContext(ctx, deps, true);
  sendHtml(ctx, forgotPasswordPage(page));
};
