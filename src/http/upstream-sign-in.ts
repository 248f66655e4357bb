/**
 * The HTTP side of signing in through an upstream identity provider (src/upstreams/sign-in.ts):
 * its deps from the app's, what a callback's outcome does to this browser's session and where the
 * browser goes next, and the sign-in page that every failure ends on, with its reason.
 */
import type Koa from 'koa';
import { Unavailable } from '../domain/errors.js';
import { noteUpstreamConfirmation, pendingUpstreamIdentity, putPendingUpstreamIdentity } from '../upstreams/session-state.js';
import { signInPage } from '../pages/pages.js';
import { allowPageSources } from '../security/headers.js';
import type { LocalPath } from '../security/return-paths.js';
import { offeredUpstreams, type OfferedUpstream, type UpstreamOutcome, type UpstreamSignInDeps } from '../upstreams/sign-in.js';
import { httpErrorOf } from './error-responses.js';
import type { AppDeps } from './handler.js';
import { pageContext, redirect, sendHtml } from './pages.js';
import { beginSecondStep, beginSignedInSession } from './signed-in.js';

export function upstreamDeps(deps: AppDeps): UpstreamSignInDeps {
  return { store: deps.store, now: deps.now, limits: deps.limits, audit: deps.audit, logger: deps.logger, secrets: deps.config.sessionSecrets, publicUrl: deps.config.publicUrl };
}

/**
 * The enabled upstreams for a page that offers their buttons, whose forms end at each upstream's
 * authorization endpoint: this response's CSP lets them (form-action applies to the redirect too).
 * None while the database is down.
 */
export async function offerUpstreams(ctx: Koa.Context, deps: AppDeps): Promise<OfferedUpstream[]> {
  // The sign-in page needs no database otherwise: while it is down the page still answers, without
  // the buttons (their callbacks could not sign anyone in then).
  const offered = await offeredUpstreams(deps.store).catch((err: unknown) => {
    if (err instanceof Unavailable) return [];
    throw err;
  });
  if (offered.length > 0) allowPageSources(ctx, { formAction: [...new Set(offered.map((u) => u.origin))] });
  return offered;
}

/**
 * Runs a step of an upstream sign-in; any expected failure (a domain error, 5xx included: the
 * upstream down or answering garbage) ends on the sign-in page with its reason and status, with
 * the buttons to try again. Anything else is a bug, and the error page's.
 */
export async function upstreamStep(ctx: Koa.Context, deps: AppDeps, returnTo: LocalPath | undefined, step: () => Promise<void>): Promise<void> {
  try {
    await step();
  } catch (err) {
    const expected = httpErrorOf(err);
    if (!expected) throw err;
    ctx.set(expected.headers);
    const page = await pageContext(ctx, deps, true);
    sendHtml(ctx, signInPage({ ...page, error: expected.message, returnTo, upstreams: await offerUpstreams(ctx, deps) }), expected.status);
  }
}

/** Where a callback's outcome takes this browser: signed in, a second step, a name to pick, a link to confirm, or back confirmed. */
export async function followUpstreamOutcome(ctx: Koa.Context, deps: AppDeps, outcome: UpstreamOutcome, returnTo: LocalPath | undefined): Promise<void> {
  if ('signedIn' in outcome) {
    await beginSignedInSession(ctx, deps, outcome.signedIn, returnTo);
    return redirect(ctx, returnTo ?? '/account', 303);
  }
  if ('owesSecondStep' in outcome) {
    await beginSecondStep(ctx, deps, outcome.owesSecondStep.id, returnTo, { amr: outcome.amr, upstream: outcome.upstream, authTime: outcome.authTime });
    return redirect(ctx, '/signin/otp', 303);
  }
  if ('linked' in outcome) return redirect(ctx, '/account', 303);
  if ('confirmed' in outcome) {
    const { userId, upstream, at } = outcome.confirmed;
    noteUpstreamConfirmation(ctx, { at, userId, upstream: upstream.slug });
    return redirect(ctx, returnTo ?? '/account', 303);
  }
  putPendingUpstreamIdentity(ctx, outcome.pending);
  redirect(ctx, outcome.pending.next === 'sign_up' ? '/signup/upstream' : '/signin/link', 303);
}

/** The pending identity of `next`, or the sign-in page (303) when there is none. */
export function pendingOrSignIn(ctx: Koa.Context, deps: AppDeps, next: 'sign_up' | 'link') {
  const pending = pendingUpstreamIdentity(ctx, next, deps.now());
  if (!pending) redirect(ctx, '/signin', 303);
  return pending;
}
