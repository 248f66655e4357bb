/**
 * A sign-in through an upstream, as this browser's session keeps it between the start, the
 * callback and the person's next step (src/upstreams/sign-in.ts, src/http/upstream-sign-in.ts),
 * and a confirmation made there.
 */
import type Koa from 'koa';
import { LIFETIMES } from '../domain/lifetimes.js';
import type { PendingUpstreamIdentity, UpstreamSignInStart } from '../domain/upstream-sign-in.js';
import { sessionOf } from '../sessions/session.js';

declare module '../sessions/session.js' {
  interface SessionData {
    /**
     * A sign-in through an upstream identity provider that this browser started and that has not
     * come back yet (src/upstreams/sign-in.ts): the state, nonce and PKCE verifier its callback must
     * match. Only this browser's session holds them, so a callback in another browser matches nothing.
     */
    upstreamSignIn?: UpstreamSignInStart;
    /**
     * Back from an upstream with an identity that is neither linked nor an account yet: waiting for
     * a public name (/signup/upstream) or for the account with its address to sign in and confirm
     * (/signin/link). It survives that sign-in (a new session id keeps the data).
     */
    upstreamIdentity?: PendingUpstreamIdentity;
  }
}

/** Starts a sign-in through an upstream (replacing one this browser started before and did not finish). */
export function startUpstreamSignInSession(ctx: Koa.Context, start: UpstreamSignInStart): void {
  sessionOf(ctx).upstreamSignIn = start;
}

/**
 * Takes the sign-in through upstream `slug` this browser started, if it did and within
 * LIFETIMES.upstreamSignIn: a callback counts once, whatever its outcome.
 */
export function takeUpstreamSignIn(ctx: Koa.Context, slug: string, now: number): UpstreamSignInStart | undefined {
  const session = sessionOf(ctx);
  const started = session.upstreamSignIn;
  if (started === undefined || started.slug !== slug) return undefined;
  delete session.upstreamSignIn;
  return now >= started.at && now - started.at < LIFETIMES.upstreamSignIn ? started : undefined;
}

/** Keeps the identity an upstream sign-in brought back until the person's next step. */
export function putPendingUpstreamIdentity(ctx: Koa.Context, pending: PendingUpstreamIdentity): void {
  sessionOf(ctx).upstreamIdentity = pending;
}

/** The identity waiting for `next`, if one is and within LIFETIMES.upstreamSignIn of its callback. */
export function pendingUpstreamIdentity(ctx: Koa.Context, next: PendingUpstreamIdentity['next'], now: number): PendingUpstreamIdentity | undefined {
  const pending = sessionOf(ctx).upstreamIdentity;
  if (pending === undefined || pending.next !== next || now < pending.at || now - pending.at >= LIFETIMES.upstreamSignIn) return undefined;
  return pending;
}

/** Forgets the identity an upstream sign-in brought back (made an account, linked, or cancelled). */
export function endPendingUpstreamIdentity(ctx: Koa.Context): void {
  delete sessionOf(ctx).upstreamIdentity;
}

/** Notes that the signed-in person `userId` just confirmed by a new sign-in at `upstream` (its slug), made at `at`. */
export function noteUpstreamConfirmation(ctx: Koa.Context, confirmation: { at: number; userId: number; upstream: string }): void {
  sessionOf(ctx).upstreamConfirmation = { ...confirmation };
}
