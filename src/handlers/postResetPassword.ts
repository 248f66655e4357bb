import { resetLinkOwner, resetPassword } from '../email/reset.js';
import { passwordResetDonePage, resetPasswordPage } from '../pages/email-pages.js';
import type { Handler } from './types.js';
import { formAction, pageContext, sendHtml } from './web.js';

export const postResetPassword: Handler<'postResetPassword'> = async (input, ctx, deps) => {
  const { token, password } = input.body;
  // A bad link is the error page; a bad password shows the form again.
  const name = await resetLinkOwner(deps, token);
  const page = await pageContext(ctx, deps, true);
  await formAction(
    ctx,
    async () => {
      await resetPassword(deps, token, password);
      // Every session of the user has just ended, this browser's too if it was signed in.
      sendHtml(ctx, passwordResetDonePage({ user: undefined, csrfToken: page.csrfToken }));
    },
    (error) => resetPasswordPage({ ...page, token, name, error }),
  );
};
