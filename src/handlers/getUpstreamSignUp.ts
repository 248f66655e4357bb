/** `GET /signup/upstream`: a new identity's public name to pick (or, with none pending, to /signin). */
import type { Handler } from '../http/handler.js';
import { pageContext, sendHtml } from '../http/pages.js';
import { pendingOrSignIn } from '../http/upstream-sign-in.js';
import { upstreamSignUpPage } from '../pages/upstreams.js';
import { suggestedPublicName } from '../accounts/users.js';

export const getUpstreamSignUp: Handler<'getUpstreamSignUp'> = async (_input, ctx, deps) => {
  const pending = pendingOrSignIn(ctx, deps, 'sign_up');
  if (!pending) return;
  const page = await pageContext(ctx, deps, true);
  sendHtml(ctx, upstreamSignUpPage({ ...page, pending, name: suggestedPublicName(pending.name) }));
};
