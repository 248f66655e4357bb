import { signInWithPassword } from '../accounts/sign-in.js';
import type { Handler } from '../http/handler.js';
import { formAction, redirect, returnPathOf } from '../http/pages.js';
import { beginSecondStep, beginSignedInSession } from '../http/signed-in.js';
import { signInPage } from '../pages/pages.js';
import { csrfToken } from '../sessions/csrf.js';
import { offerUpstreams } from '../http/upstream-sign-in.js';

export const postSignIn: Handler<'postSignIn'> = async (input, ctx, deps) => {
  const form = input.body;
  const returnTo = returnPathOf(deps, form.return_to);
  await formAction(
    ctx,
    async () => {
      const outcome = await signInWithPassword(deps, { login: form.name, password: form.password }, ctx.ip);
      if ('owesSecondStep' in outcome) {
        await beginSecondStep(ctx, deps, outcome.owesSecondStep.id, returnTo);
        return redirect(ctx, '/signin/otp', 303);
      }
      await beginSignedInSession(ctx, deps, outcome, returnTo);
      redirect(ctx, returnTo ?? '/account', 303);
    },
    async (error) => signInPage({ user: undefined, csrfToken: csrfToken(ctx), error, login: form.name, returnTo, upstreams: await offerUpstreams(ctx, deps) }),
  );
};
