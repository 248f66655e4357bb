/**
 * The second step of sign-in (docs/account.md#authenticator-app-and-recovery-codes): after a right
 * password, an account with an authenticator app owes a code. The session meanwhile holds only
 * the pending step (src/sessions/session.ts startSecondStep): it is not signed in, so every page
 * and call that needs a user treats it as signed out.
 */
import type Koa from 'koa';
import { noticeSecurityChange } from '../accounts/notices.js';
import { SecondStepEnded, verifySecondFactor } from '../accounts/second-factor.js';
import { Unauthenticated } from '../domain/errors.js';
import { refuseSuspended } from '../moderation/moderation.js';
import type { UserRecord } from '../store/types.js';
import { signInSecondStepPage } from '../pages/authenticator.js';
import { csrfToken } from '../sessions/csrf.js';
import { endSecondStep, pendingSecondStep, startSecondStep } from '../sessions/session.js';
import { secondFactorDeps } from './secondFactor.js';
import type { AppDeps, Handler } from './types.js';
import { beginSignedInSession, formAction, pageContext, redirect, sendHtml } from './web.js';

/** Where a right password goes when the account owes a second step (not a suspended account's). */
export async function owesSecondStep(ctx: Koa.Context, deps: AppDeps, user: Pick<UserRecord, 'id' | 'suspension'>, returnTo: string | undefined): Promise<void> {
  refuseSuspended(user, deps.now());
  await startSecondStep(ctx, { userId: user.id, at: deps.now(), ...(returnTo === undefined ? {} : { returnTo }) });
  redirect(ctx, '/signin/otp', 303);
}

export const getSignInSecondStep: Handler<'getSignInSecondStep'> = async (_input, ctx, deps) => {
  if (!pendingSecondStep(ctx, deps.now())) return redirect(ctx, '/signin', 303);
  const page = await pageContext(ctx, deps, true);
  sendHtml(ctx, signInSecondStepPage(page));
};

export const postSignInSecondStep: Handler<'postSignInSecondStep'> = async (input, ctx, deps) => {
  const typed = input.body.otp;
  await formAction(
    ctx,
    async () => {
      const step = pendingSecondStep(ctx, deps.now());
      const user = step && (await deps.store.getUser(step.userId));
      if (!step || !user) throw new Unauthenticated('This sign-in took too long or was not started: start over with your password');
      let used;
      try {
        used = await verifySecondFactor(secondFactorDeps(deps), user, typed, ctx.ip, step.id);
      } catch (err) {
        if (err instanceof SecondStepEnded) endSecondStep(ctx);
        throw err;
      }
      if (used === 'recovery') noticeSecurityChange(deps, user.id, 'recovery_code_used');
      await beginSignedInSession(ctx, deps, user, 'sign_in', step.returnTo, ['pwd', 'otp', 'mfa']);
      redirect(ctx, step.returnTo ?? '/account', 303);
    },
    (error) => signInSecondStepPage({ user: undefined, csrfToken: csrfToken(ctx), error, typed }),
  );
};
