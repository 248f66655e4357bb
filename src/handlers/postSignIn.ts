import { signIn } from '../accounts/accounts.js';
import { hasSecondFactor } from '../accounts/second-factor.js';
import { signInPage } from '../pages/pages.js';
import { csrfToken } from '../sessions/csrf.js';
import { owesSecondStep } from './signInSecondStep.js';
import type { Handler } from './types.js';
import { beginSignedInSession, formAction, redirect, safeReturnTo } from './web.js';

export const postSignIn: Handler<'postSignIn'> = async (input, ctx, deps) => {
  const form = input.body;
  const returnTo = safeReturnTo(form.return_to);
  await formAction(
    ctx,
    async () => {
      const user = await signIn(deps, { login: form.name, password: form.password }, ctx.ip);
      // An authenticator app switched on: the password alone does not sign in.
      if (await hasSecondFactor(deps, user.id)) return owesSecondStep(ctx, deps, user, returnTo);
      await beginSignedInSession(ctx, deps, user, 'sign_in', returnTo);
      redirect(ctx, returnTo ?? '/account', 303);
    },
    (error) => signInPage({ user: undefined, csrfToken: csrfToken(ctx), error, login: form.name, returnTo }),
  );
};
