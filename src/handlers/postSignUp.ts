import { signUp } from '../accounts/accounts.js';
import { sendVerificationAfterSignUp } from '../email/verification.js';
import { recordSignIn } from '../accounts/sign-ins.js';
import { signUpPage } from '../pages/pages.js';
import { csrfToken, newCsrfSecret } from '../sessions/csrf.js';
import { startUserSession } from '../sessions/session.js';
import type { Handler } from './types.js';
import { formAction, redirect, safeReturnTo } from './web.js';

export const postSignUp: Handler<'postSignUp'> = async (input, ctx, deps) => {
  const form = input.body;
  const returnTo = safeReturnTo(form.return_to);
  await formAction(
    ctx,
    async () => {
      const user = await signUp(deps, { name: form.name, email: form.email, password: form.password }, ctx.ip);
      await startUserSession(ctx, user.id, newCsrfSecret(), deps.now());
      const client = { ip: ctx.ip, userAgent: ctx.get('User-Agent') };
      // Signing up signs in: it is the first entry of the user's sign-in history.
      await recordSignIn(deps, user.id, client);
      deps.audit('sign_up', { userId: user.id, ...client });
      await sendVerificationAfterSignUp(deps, user);
      redirect(ctx, returnTo ?? '/account', 303);
    },
    (error) => signUpPage({ user: undefined, csrfToken: csrfToken(ctx), error, name: form.name, email: form.email, returnTo }),
  );
};
