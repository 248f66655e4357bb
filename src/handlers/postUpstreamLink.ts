/** `POST /signin/link`: the signed-in person links the pending identity to their account, or does not. */
import { Unauthenticated } from '../domain/errors.js';
import { waysIn } from '../accounts/factors.js';
import type { Handler } from '../http/handler.js';
import { formAction, pageContext, redirect, redirectBack } from '../http/pages.js';
import { upstreamDeps } from '../http/upstream-sign-in.js';
import { upstreamLinkPage } from '../pages/upstreams.js';
import { sessionStartedAt } from '../sessions/session.js';
import { endPendingUpstreamIdentity, pendingUpstreamIdentity } from '../upstreams/session-state.js';
import { confirmUpstreamLink, mayConfirmLink } from '../upstreams/sign-in.js';

export const postUpstreamLink: Handler<'postUpstreamLink'> = async (input, ctx, deps) => {
  const pending = pendingUpstreamIdentity(ctx, 'link', deps.now());
  if (!pending) throw new Unauthenticated('Nothing is waiting to be linked (it took longer than 10 minutes, or it was done): sign in with it again');
  const page = await pageContext(ctx, deps, true);
  await formAction(
    ctx,
    async () => {
      if (!page.record) throw new Unauthenticated('Sign in to the account with this address first');
      if (input.body.decision === 'link') await confirmUpstreamLink(upstreamDeps(deps), page.record, sessionStartedAt(ctx), pending, ctx.ip);
      endPendingUpstreamIdentity(ctx);
      // Kept in the session since the sign-in started: checked again as it is read.
      if (input.body.decision === 'link') return redirectBack(ctx, deps, pending.returnTo);
      redirect(ctx, '/account', 303);
    },
    async (error) => {
      const mayConfirm = mayConfirmLink(pending, page.record?.id, sessionStartedAt(ctx));
      return upstreamLinkPage({ ...page, pending, mayConfirm, waysIn: mayConfirm && page.record ? await waysIn(deps.store, page.record) : undefined, error });
    },
  );
};
