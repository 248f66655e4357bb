/**
 * `POST /signin/upstream/{slug}`: a "Sign in with <name>" button; to the upstream, with this
 * browser's checks kept in its session. With `link`, the account page's "Link <name>": the signed-in
 * person confirms who they are first (password or a recent passkey), as before adding a passkey.
 */
import { confirmPasswordOrPasskey } from '../accounts/confirmation.js';
import { SIGN_IN_FIRST, Unauthenticated } from '../domain/errors.js';
import type { Handler } from '../http/handler.js';
import { redirect, returnPathOf } from '../http/pages.js';
import { currentUser } from '../http/signed-in.js';
import { upstreamDeps, upstreamStep } from '../http/upstream-sign-in.js';
import { passkeyConfirmedAt, startUpstreamSignInSession } from '../sessions/session.js';
import { startUpstreamSignIn as start } from '../upstreams/sign-in.js';

export const startUpstreamSignIn: Handler<'startUpstreamSignIn'> = async (input, ctx, deps) => {
  const form = input.body;
  const returnTo = returnPathOf(deps, form.return_to);
  await upstreamStep(ctx, deps, returnTo, async () => {
    let linkTo: number | undefined;
    if (form.link === 'true') {
      const user = await currentUser(ctx, deps);
      if (!user) throw new Unauthenticated(SIGN_IN_FIRST);
      await confirmPasswordOrPasskey(deps, user, { password: form.password, passkeyConfirmedAt: passkeyConfirmedAt(ctx) }, ctx.ip);
      linkTo = user.id;
    }
    const { url, start: started } = await start(upstreamDeps(deps), input.path.slug, ctx.ip, { returnTo, ...(linkTo === undefined ? {} : { linkTo }) });
    startUpstreamSignInSession(ctx, started);
    redirect(ctx, url, 303);
  });
};
