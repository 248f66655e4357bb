/** The code of the second step of sign-in (getSignInSecondStep.ts), and the sign-in it completes. */
import { SecondStepEnded, SeedUnreadable } from '../accounts/second-factor.js';
import { signInSecondStep } from '../accounts/sign-in.js';
import type { Handler } from '../http/handler.js';
import { formAction, redirect, returnPathOf, sendHtml } from '../http/pages.js';
import { beginSignedInSession } from '../http/signed-in.js';
import { signInSecondStepPage } from '../pages/authenticator.js';
import { csrfToken } from '../sessions/csrf.js';
import { endSecondStep, pendingSecondStep } from '../sessions/session.js';

export const postSignInSecondStep: Handler<'postSignInSecondStep'> = async (input, ctx, deps) => {
  const typed = input.body.otp;
  await formAction(
    ctx,
    async () => {
      const step = pendingSecondStep(ctx, deps.now());
      let signedIn;
      try {
        signedIn = await signInSecondStep(deps, step, typed, ctx.ip);
      } catch (err) {
        // Too many wrong codes for this step: the password is asked again.
        if (err instanceof SecondStepEnded) endSecondStep(ctx);
        // The app's seed is lost for good: the same step goes on with a recovery code (503: the
        // code was not refused, the service cannot check it).
        if (err instanceof SeedUnreadable) {
          sendHtml(ctx, signInSecondStepPage({ user: undefined, csrfToken: csrfToken(ctx), seedUnreadable: err.message }), 503);
          return;
        }
        throw err;
      }
      // Kept in the session since the password step: checked again as it is read.
      const returnTo = returnPathOf(deps, step?.returnTo);
      await beginSignedInSession(ctx, deps, signedIn, returnTo);
      redirect(ctx, returnTo ?? '/account', 303);
    },
    (error) => signInSecondStepPage({ user: undefined, csrfToken: csrfToken(ctx), error, typed }),
  );
};
