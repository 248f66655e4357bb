/**
 * `POST /signin/upstream/{slug}`: a "Sign in with <name>" button; to the upstream, with this
 * browser's checks kept in its session. With `link`, the account page's "Link <name>": the signed-in
 * person confirms who they are first (password or a recent confirmation), as before adding a passkey.
 * With `confirm`, the account page's "Confirm with <name>": a new sign-in there confirms who the
 * signed-in person is (docs/account.md#confirming-through-a-linked-account).
 */
import { confirmPasswordOrPasskey } from '../accounts/confirmation.js';
import { InvalidInput, SIGN_IN_FIRST, Unauthenticated } from '../domain/errors.js';
import type { Handler } from '../http/handler.js';
import { redirect, returnPathOf } from '../http/pages.js';
import { currentUser } from '../http/signed-in.js';
import { upstreamDeps, upstreamStep } from '../http/upstream-sign-in.js';
import { sessionConfirmations } from '../sessions/session.js';
import { startUpstreamSignInSession } from '../upstreams/session-state.js';
import { startUpstreamSignIn as start } from '../upstreams/sign-in.js';

export const startUpstreamSignIn: Handler<'startUpstreamSignIn'> = async (input, ctx, deps) => {
  const form = input.body;
  const returnTo = returnPathOf(deps, form.return_to);
  await upstreamStep(ctx, deps, returnTo, async () => {
    const forAccount: { linkTo?: number; confirmFor?: number } = {};
    if (form.link === 'true' || form.confirm === 'true') {
      if (form.link === 'true' && form.confirm === 'true') throw new InvalidInput('Link an account or confirm with one, not both at once');
      const user = await currentUser(ctx, deps);
      if (!user) throw new Unauthenticated(SIGN_IN_FIRST);
      if (form.confirm === 'true') forAccount.confirmFor = user.id;
      else {
        await confirmPasswordOrPasskey(deps, user, { password: form.password, ...sessionConfirmations(ctx, user.id) }, ctx.ip);
        forAccount.linkTo = user.id;
      }
    }
    const { url, start: started } = await start(upstreamDeps(deps), input.path.slug, ctx.ip, { returnTo, ...forAccount });
    startUpstreamSignInSession(ctx, started);
    redirect(ctx, url, 303);
  });
};
