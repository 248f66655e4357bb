import { requestPasswordReset } from '../accounts/email/reset.js';
import { forgotPasswordPage, forgotPasswordSentPage } from '../pages/email-pages.js';
import type { Handler } from '../http/handler.js';
import { formAction, pageContext, sendHtml } from '../http/pages.js';

export const postForgotPassword: Handler<'postForgotPassword'> = async (input, ctx, deps) => {
  const login = input.body.login;
  const page = await pageContext(ctx, deps, true);
  await formAction(
    ctx,
    async () => {
      await requestPasswordReset(deps, login, ctx.ip);
      sendHtml(ctx, forgotPasswordSentPage(page));
    },
    (error) => forgotPasswordPage({ ...page, error, login }),
  );
};
