import { resendVerification } from '../accounts/email/verification.js';
import { verificationSentPage } from '../pages/email-pages.js';
import type { Handler } from './types.js';
import { pageContext, safeReturnTo, sendHtml, signedInUser } from './web.js';

export const postResendVerification: Handler<'postResendVerification'> = async (input, ctx, deps) => {
  const user = signedInUser(ctx);
  await resendVerification(deps, user);
  const page = await pageContext(ctx, deps);
  sendHtml(ctx, verificationSentPage({ ...page, email: user.email, returnTo: safeReturnTo(input.body?.return_to) ?? '/account' }));
};
