/**
 * `GET /signin/upstream/{slug}/callback`: back from the upstream. The sign-in this browser started
 * is taken out of its session (a callback counts once), the code exchanged, and the outcome
 * followed; any failure ends on the sign-in page with its reason.
 */
import type { Handler } from '../http/handler.js';
import { returnPathOf } from '../http/pages.js';
import { readSession } from '../sessions/session.js';
import { takeUpstreamSignIn } from '../upstreams/session-state.js';
import { followUpstreamOutcome, upstreamDeps, upstreamStep } from '../http/upstream-sign-in.js';
import { finishUpstreamSignIn as finish } from '../upstreams/sign-in.js';
import { upstreamCallback } from '../upstreams/upstreams.js';

export const finishUpstreamSignIn: Handler<'finishUpstreamSignIn'> = async (input, ctx, deps) => {
  const { slug } = input.path;
  const start = takeUpstreamSignIn(ctx, slug, deps.now());
  // Kept in the session since the sign-in started: checked again as it is read.
  const returnTo = returnPathOf(deps, start?.returnTo);
  await upstreamStep(ctx, deps, returnTo, async () => {
    // The address the upstream sent the browser to: the registered redirect URI (PUBLIC_URL's, as
    // the request was made to it) and the answer's parameters; openid-client sends the former back.
    const url = new URL(upstreamCallback(deps.config.publicUrl, slug));
    url.search = ctx.querystring;
    const outcome = await finish(upstreamDeps(deps), slug, start, { url, state: input.query.state, error: input.query.error }, ctx.ip, readSession(ctx).userId);
    await followUpstreamOutcome(ctx, deps, outcome, returnTo);
  });
};
