/** `POST /signup/upstream`: the account made with the picked name, the identity linked, signed in. */
import type { Handler } from '../http/handler.js';
import { formAction, redirect, returnPathOf } from '../http/pages.js';
import { beginSignedInSession } from '../http/signed-in.js';
import { pendingOrSignIn, upstreamDeps } from '../http/upstream-sign-in.js';
import { upstreamSignUpPage } from '../pages/upstreams.js';
import { csrfToken } from '../sessions/csrf.js';
import { endPendingUpstreamIdentity } from '../upstreams/session-state.js';
import { signUpThroughUpstream } from '../upstreams/sign-in.js';

export const postUpstreamSignUp: Handler<'postUpstreamSignUp'> = async (input, ctx, deps) => {
  const pending = pendingOrSignIn(ctx, deps, 'sign_up');
  if (!pending) return;
  const name = input.body.name.trim();
  await formAction(
    ctx,
    async () => {
      await deps.limits.signUpIp.consume(ctx.ip);
      const signedIn = await signUpThroughUpstream(upstreamDeps(deps), pending, name, { ip: ctx.ip, userAgent: ctx.get('User-Agent') });
      endPendingUpstreamIdentity(ctx);
      // Kept in the session since the sign-in started: checked again as it is read.
      const returnTo = returnPathOf(deps, pending.returnTo);
      await beginSignedInSession(ctx, deps, signedIn, returnTo);
      redirect(ctx, returnTo ?? '/account', 303);
    },
    (error) => upstreamSignUpPage({ user: undefined, csrfToken: csrfToken(ctx), pending, name, error }),
  );
};
