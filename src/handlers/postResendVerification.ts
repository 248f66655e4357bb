import { resendVerification } from '../accounts/email/verification.js';
import { verificationSentPage } from '../pages/email-pages.js';
import type { Handler } from '../http/handler.js';
import { pageContext, returnPathOf, sendHtml } from '../http/pages.js';
import { signedInUser } from '../http/signed-in.js';

export const postResendVerification: Handler<'postResendVerification'> = async (input, ctx, deps) => {
  const user = signedInUser(ctx);
  await resendVerification(deps, user);
  const page = await pageContext(ctx, deps);
  sendHtml(ctx, verificationSentPage({ ...page, email: user.email, returnTo: returnPathOf(deps, input.body?.return_to) }));
};
