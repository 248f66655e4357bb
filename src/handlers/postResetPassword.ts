import { resetLinkOwner, resetPassword } from '../accounts/email/reset.js';
import { passwordResetDonePage, resetPasswordPage } from '../pages/email-pages.js';
import { endSession } from '../sessions/session.js';
import { formAction, pageContext, sendHtml, withEmailLink } from '../http/pages.js';
import type { Handler } from '../http/handler.js';

export const postResetPassword: Handler<'postResetPassword'> = async (input, ctx, deps) => {
  const { token, password } = input.body;
  // A bad link is the error page; a bad password shows the form again.
  const name = await withEmailLink(ctx, deps, 'reset', () => resetLinkOwner(deps, token));
  if (name === undefined) return;
  const page = await pageContext(ctx, deps, true);
  await formAction(
    ctx,
    async () => {
      await resetPassword(deps, token, password);
      // Every session of the user has ended in the store; this browser's is ended here too, so
      // the end of this request cannot save it back (koa-session renews sessions it touches).
      endSession(ctx);
      sendHtml(ctx, passwordResetDonePage({ user: undefined, csrfToken: '' }));
    },
    (error) => resetPasswordPage({ ...page, token, name, error }),
  );
};
