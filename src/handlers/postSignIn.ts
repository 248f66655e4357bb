import { signIn } from '../accounts/accounts.js';
import { recordSignIn } from '../accounts/sign-ins.js';
import { signInPage } from '../pages/pages.js';
import { csrfToken, newCsrfSecret } from '../sessions/csrf.js';
import { startUserSession } from '../sessions/session.js';
import type { Handler } from './types.js';
import { formAction, redirect, safeReturnTo } from './web.js';

export const postSignIn: Handler<'postSignIn'> = async (input, ctx, deps) => {
  const form = input.body;
  const returnTo = safeReturnTo(form.return_to);
  await formAction(
    ctx,
    async () => {
      const user = await signIn(deps, { login: form.name, password: form.password }, ctx.ip);
      await startUserSession(ctx, user.id, newCsrfSecret(), deps.now());
      const client = { ip: ctx.ip, userAgent: ctx.get('User-Agent') };
      await recordSignIn(deps, user.id, client);
      deps.audit('sign_in', { userId: user.id, ...client });
      redirect(ctx, returnTo ?? '/account', 303);
    },
    (error) => signInPage({ user: undefined, csrfToken: csrfToken(ctx), error, login: form.name, returnTo }),
  );
};
