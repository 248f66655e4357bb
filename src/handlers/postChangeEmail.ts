import { requestEmailChange } from '../accounts/email/change.js';
import { emailChangeRequestedPage } from '../pages/email-pages.js';
import { renderAccountPage } from '../http/account-page.js';
import { httpErrorOf } from '../http/error-responses.js';
import type { Handler } from '../http/handler.js';
import { pageContext, sendHtml } from '../http/pages.js';
import { signedInUser } from '../http/signed-in.js';
import { sessionConfirmations } from '../sessions/session.js';

/**
 * A refusal (wrong password, the same or a taken or invalid address, too many tries) answers the
 * account page again with its status: the reason beside the form, the typed address kept.
 */
export const postChangeEmail: Handler<'postChangeEmail'> = async (input, ctx, deps) => {
  const user = signedInUser(ctx);
  let newEmail: string;
  try {
    newEmail = await requestEmailChange(deps, user, { email: input.body.email, proof: { password: input.body.password, ...sessionConfirmations(ctx, user.id) } });
  } catch (err) {
    const refused = httpErrorOf(err);
    if (!refused || refused.status >= 500) throw err;
    ctx.set(refused.headers);
    const field = refused.status === 403 || /password is required/.test(refused.message) ? 'password' : refused.status === 429 || /^Confirm/.test(refused.message) ? undefined : 'email';
    sendHtml(ctx, await renderAccountPage(ctx, deps, user, { message: refused.message, email: input.body.email, field }), refused.status);
    return;
  }
  const page = await pageContext(ctx, deps);
  sendHtml(ctx, emailChangeRequestedPage({ ...page, newEmail, currentEmail: user.email }));
};
