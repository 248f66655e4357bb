/** `GET /signin/link`: an identity whose address an account has; sign in to that account first, then confirm. */
import { waysIn } from '../accounts/factors.js';
import type { Handler } from '../http/handler.js';
import { pageContext, sendHtml } from '../http/pages.js';
import { pendingOrSignIn } from '../http/upstream-sign-in.js';
import { upstreamLinkPage } from '../pages/upstreams.js';
import { sessionStartedAt } from '../sessions/session.js';
import { mayConfirmLink } from '../upstreams/sign-in.js';

export const getUpstreamLink: Handler<'getUpstreamLink'> = async (_input, ctx, deps) => {
  const pending = pendingOrSignIn(ctx, deps, 'link');
  if (!pending) return;
  const page = await pageContext(ctx, deps, true);
  const mayConfirm = mayConfirmLink(pending, page.record?.id, sessionStartedAt(ctx));
  sendHtml(ctx, upstreamLinkPage({ ...page, pending, mayConfirm, waysIn: mayConfirm && page.record ? await waysIn(deps.store, page.record) : undefined }));
};
