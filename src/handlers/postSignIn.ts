import { signIn } from '../accounts/accounts.js';
import { signInPage } from '../pages/pages.js';
import { csrfToken } from '../sessions/csrf.js';
import type { Handler } from './types.js';
import { beginSignedInSession, formAction, redirect, safeReturnTo } from './web.js';

export const postSignIn: Handler<'postSignIn'> = async (input, ctx, deps) => {
  const form = input.body;
  const returnTo = safeReturnTo(form.return_to);
  await formAction(
    ctx,
    async () => {
      const user = await signIn(deps, { login: form.name, password: form.password }, ctx.ip);
      await beginSignedInSession(ctx, deps, user.id, 'sign_in', returnTo);
      redirect(ctx, returnTo ?? '/account', 303);
    },
    (error) => signInPage({ user: undefined, csrfToken: csrfToken(ctx), error, login: form.name, returnTo }),
  );
};
