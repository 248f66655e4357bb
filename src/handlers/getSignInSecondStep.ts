/**
 * The second step of sign-in (docs/account.md#authenticator-app-and-recovery-codes): after a right
 * password, an account with an authenticator app owes a code. The session meanwhile holds only
 * the pending step (src/sessions/session.ts startSecondStep): it is not signed in, so every page
 * and call that needs a user treats it as signed out.
 */
import type { Handler } from '../http/handler.js';
import { pageContext, redirect, sendHtml } from '../http/pages.js';
import { signInSecondStepPage } from '../pages/authenticator.js';
import { pendingSecondStep } from '../sessions/session.js';

export const getSignInSecondStep: Handler<'getSignInSecondStep'> = async (_input, ctx, deps) => {
  if (!pendingSecondStep(ctx, deps.now())) return redirect(ctx, '/signin', 303);
  const page = await pageContext(ctx, deps, true);
  sendHtml(ctx, signInSecondStepPage(page));
};
