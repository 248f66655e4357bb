import { signUp } from '../accounts/accounts.js';
import { sendVerificationAfterSignUp } from '../accounts/email/verification.js';
import { signUpPage } from '../pages/pages.js';
import { csrfToken } from '../sessions/csrf.js';
import type { Handler } from './types.js';
import { beginSignedInSession, formAction, redirect, safeReturnTo } from './web.js';

export const postSignUp: Handler<'postSignUp'> = async (input, ctx, deps) => {
  const form = input.body;
  const returnTo = safeReturnTo(form.return_to);
  await formAction(
    ctx,
    async () => {
      const user = await signUp(deps, { name: form.name, email: form.email, password: form.password }, ctx.ip);
      // Signing up signs in: it is the first entry of the user's sign-in history.
      await beginSignedInSession(ctx, deps, user, 'sign_up', returnTo);
      await sendVerificationAfterSignUp(deps, user);
      redirect(ctx, returnTo ?? '/account', 303);
    },
    (error) => signUpPage({ user: undefined, csrfToken: csrfToken(ctx), error, name: form.name, email: form.email, returnTo }),
  );
};
