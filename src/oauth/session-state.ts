/**
 * The authorization flow's state in this browser's session: the fresh sign-in a request asked for
 * (prompt=login, max_age, acr_values), taken once by /oauth, and the consent page shown right
 * after it (src/oauth/authorization-policy.ts, src/http/authorization.ts).
 */
import type Koa from 'koa';
import { LIFETIMES } from '../domain/lifetimes.js';
import { sessionOf } from '../sessions/session.js';

declare module '../sessions/session.js' {
  interface SessionData {
    /**
     * Left by GET /oauth when it took a fresh sign-in (freshSignIn) and showed the consent page:
     * that sign-in's time and the app asked for. POST /oauth takes it (takeSignInBehindConsent):
     * what tells the decision that the sign-in `prompt=login`, `max_age` or `acr_values` asked for
     * has happened, since the form itself carries nothing the session's holder could not forge.
     */
    signInBehindConsent?: { at: number; clientId: string };
  }
}

/**
 * Whether the session signed in, within the last 10 minutes, on its way to exactly `address`
 * (this authorization request), and no request has taken that sign-in yet. Any authorization
 * request takes it, so it counts once.
 */
export function takeFreshSignIn(ctx: Koa.Context, now: number, address: string): boolean {
  const session = sessionOf(ctx);
  const fresh = session.freshSignIn;
  if (fresh === undefined) return false;
  delete session.freshSignIn;
  return fresh.for === address && now - fresh.at < LIFETIMES.freshSignIn;
}

/**
 * GET /oauth shows the consent page for `clientId` right after taking the fresh sign-in the
 * request asked for (takeFreshSignIn): this session's sign-in, known by its start (every sign-in
 * starts its own session), which may be later than its auth_time (an upstream's).
 */
export function noteSignInBehindConsent(ctx: Koa.Context, clientId: string): void {
  const session = sessionOf(ctx);
  const signedInAt = session.meta?.startedAt;
  if (signedInAt !== undefined) session.signInBehindConsent = { at: signedInAt, clientId };
}

/**
 * Whether POST /oauth's decision for `clientId` answers a consent page GET /oauth showed right
 * after a fresh sign-in, and the session is still that sign-in (its start: every sign-in sets its
 * own), within 10 minutes of it. Taken by the decision: it counts once, as the sign-in did.
 */
export function takeSignInBehindConsent(ctx: Koa.Context, now: number, clientId: string): boolean {
  const session = sessionOf(ctx);
  const noted = session.signInBehindConsent;
  if (noted === undefined) return false;
  delete session.signInBehindConsent;
  return noted.clientId === clientId && noted.at === session.meta?.startedAt && now >= noted.at && now - noted.at < LIFETIMES.freshSignIn;
}
