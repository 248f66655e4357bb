import { requestEmailChange } from '../accounts/email/change.js';
import { emailChangeRequestedPage } from '../pages/email-pages.js';
import type { Handler } from './types.js';
import { pageContext, sendHtml, signedInUser } from './web.js';

export const postChangeEmail: Handler<'postChangeEmail'> = async (input, ctx, deps) => {
  const user = signedInUser(ctx);
  const newEmail = await requestEmailChange(deps, user, { email: input.body.email, password: input.body.password });
  const page = await pageContext(ctx, deps);
  sendHtml(ctx, emailChangeRequestedPage({ ...page, newEmail, currentEmail: user.email }));
};
