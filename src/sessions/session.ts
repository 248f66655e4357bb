/**
 * Sessions: koa-session with its data in the Store (table `sessions`). The cookie carries only a
 * random id (signed with SESSION_SECRET); the table keys rows by the id's SHA-256, so a leaked
 * table hands out no live sessions (docs/decisions.md#sessions-and-csrf).
 */
import type Koa from 'koa';
import createSession from 'koa-session';
import { hashSecret, randomSecret } from '../security/secrets.js';
import type { SessionMeta } from '../domain/sessions.js';
import { LIFETIMES } from '../domain/lifetimes.js';
import type { Store } from '../store/types.js';

const SESSION_COOKIE = 'idp.sid';

/**
 * What this service keeps in a session: what every flow shares here; a feature adds the state of
 * its own flow beside it where that flow is written (`declare module` in its session-state.ts:
 * src/oauth/session-state.ts, src/upstreams/session-state.ts).
 *
 * @public (exported for those augmentations)
 */
export interface SessionData {
  userId?: number;
  /** The synchronizer-token secret that CSRF tokens of this session are made from. */
  csrfSecret?: string;
  /** What the account page lists of a signed-in session (also written to its own columns). */
  meta?: SessionMeta;
  /**
   * Set by a sign-in made on the way to an address (its return_to), taken by the next
   * authorization request (takeFreshSignIn): what tells /oauth that the sign-in `prompt=login`
   * or `max_age` asked for has happened.
   */
  freshSignIn?: { at: number; for: string };
  /**
   * How the person proved who they are in this sign-in: RFC 8176 Authentication Method
   * Reference values (`pwd`; `otp` and `mfa` after a second step; `hwk`/`swk` and `user` for a
   * passkey). Apps are told in the ID token's `amr`. Absent on sessions signed in before it
   * was recorded: those count as `['pwd']`.
   */
  amr?: string[];
  /**
   * When the person proved who they are, where that was before this sign-in: the `auth_time` an
   * upstream's ID token gave (src/upstreams/sign-in.ts). Absent: the sign-in's own time (the
   * session's start, `meta.startedAt`). OpenID Connect's auth_time (sessionAuthTime).
   */
  authTime?: number;
  /**
   * The WebAuthn challenges this session was given (src/accounts/passkeys.ts), one per ceremony:
   * each is taken (deleted) by the first answer to it, and counts only until `expiresAt`.
   */
  passkeyChallenges?: Partial<Record<PasskeyCeremony, { challenge: string; expiresAt: number }>>;
  /**
   * A sign-in half done: the password was right, the second step (src/handlers/postSignInSecondStep.ts)
   * is still owed. It gives no access: `userId` stays unset until the second step is done.
   */
  secondStep?: SecondStep;
  /**
   * When the signed-in person last confirmed who they are with one of the account's passkeys
   * (POST /api/account/reauth/passkey): for a few minutes it stands in for the password before
   * a factor change (src/accounts/confirmation.ts confirmPasswordOrPasskey).
   */
  passkeyConfirmedAt?: number;
  /**
   * When the signed-in person of an account without a password last confirmed who they are by a
   * new sign-in at an upstream where the account is linked (src/upstreams/sign-in.ts, `confirm`):
   * the upstream's auth_time, and the account it confirmed (a confirmation counts for it alone).
   */
  upstreamConfirmation?: { at: number; userId: number; upstream: string };
  /**
   * Left in place of a signed-in session by the suspension of its account (the store writes it,
   * src/store/moderation/queries.ts): whose session it was, so its next page can say why it was
   * signed out. A sign-in replaces it.
   */
  suspendedUserId?: number;
}

/** A passkey ceremony: adding one to the signed-in account, signing in with one, or confirming with one. */
type PasskeyCeremony = 'register' | 'sign_in' | 'confirm';

/** Who passed the password, when, and where they were going (return_to). */
interface SecondStep {
  userId: number;
  at: number;
  returnTo?: string;
  /**
   * What this step's wrong codes are counted by (limits.secondStepAttempt): random, so a new
   * password sign-in starts a new count, and no other step shares it. Absent in steps owed
   * before it was recorded: those count by user and start time.
   */
  id?: string;
  /**
   * How the first step signed in (RFC 8176): `pwd`, or `fed` and what the upstream asserted.
   * Absent in steps owed before it was recorded: those were passwords.
   */
  amr?: string[];
  /** The upstream the first step signed in through, if it did: the sign-in history names it. */
  upstream?: { slug: string; name: string };
  /** When that upstream says the person authenticated there, if it said (the session's auth_time once the step is done). */
  authTime?: number;
}

/**
 * How stale "last seen" may get before a request writes it again: a session row is written at
 * most once per this interval for it, not on every request.
 */
export const LAST_SEEN_EVERY_MS = 5 * 60 * 1000;
const MAX_USER_AGENT = 512;
/** As the sign-in history keeps it (src/accounts/sign-ins.ts) and the column holds it. */
const MAX_IP = 64;

type KoaSession = SessionData & { regenerate(): Promise<void> };

interface SessionDeps {
  store: Pick<Store, 'sessions'>;
  now: () => number;
  /** The signing keys: the first signs, every one verifies (SESSION_SECRET rotation). */
  secrets: readonly string[];
}

export function sessionMiddleware(koa: Koa, deps: SessionDeps): Koa.Middleware {
  koa.keys = [...deps.secrets];
  return createSession(
    {
      key: SESSION_COOKIE,
      maxAge: LIFETIMES.session,
      httpOnly: true,
      sameSite: 'lax',
      signed: true,
      renew: true,
      genid: () => randomSecret(32),
      store: {
        get: async (key: string, _maxAge: number, options: { ctx?: Koa.Context }) => {
          const ctx = options.ctx!;
          const data = await deps.store.sessions.getSession(hashSecret(key), deps.now());
          if (data === undefined) return undefined;
          const sess = JSON.parse(data) as SessionData;
          ctx.state.loadedSession = { key, userId: sess.userId ?? null };
          return sess;
        },
        set: async (key: string, sess: SessionData, maxAge: number, options: { ctx?: Koa.Context }) => {
          const ctx = options.ctx!;
          const userId = sess.userId ?? null;
          const loaded = ctx.state.loadedSession;
          // A session this request read is written back only if it still stands as it was read:
          // one a security event ended meanwhile (a slow request's body still arriving) stays ended.
          if (loaded?.key === key) {
            await deps.store.sessions.updateSession(hashSecret(key), JSON.stringify(sess), deps.now() + maxAge, userId, userId === null ? null : sess.meta, loaded.userId);
            return;
          }
          await deps.store.sessions.setSession(hashSecret(key), JSON.stringify(sess), deps.now() + maxAge, userId, userId === null ? null : sess.meta);
        },
        destroy: async (key: string) => {
          await deps.store.sessions.deleteSession(hashSecret(key));
        },
      },
    },
    koa,
  );
}

/** This request's session (koa-session's), for the accessors of each flow's state here and in src/sessions/. */
export function sessionOf(ctx: Koa.Context): KoaSession {
  const session = (ctx as unknown as { session: KoaSession | null }).session;
  if (!session) throw new Error('session middleware is not installed on this route');
  return session;
}

export function readSession(ctx: Koa.Context): Readonly<SessionData> {
  return sessionOf(ctx);
}

/**
 * Signs a user in under a fresh session id and a fresh CSRF secret, so an id or token planted
 * before sign-in (session fixation) is worth nothing after it. `authTime`: when the person
 * authenticated, where that was before now (an upstream's `auth_time`).
 */
export async function startUserSession(
  ctx: Koa.Context,
  userId: number,
  csrfSecret: string,
  now = Date.now(),
  returnTo?: string,
  amr: readonly string[] = ['pwd'],
  authTime?: number,
): Promise<void> {
  const session = sessionOf(ctx);
  delete session.secondStep;
  delete session.suspendedUserId;
  // A confirmation is of the sign-in it was made in: a new sign-in starts without one.
  delete session.passkeyConfirmedAt;
  delete session.upstreamConfirmation;
  session.userId = userId;
  session.amr = [...amr];
  if (authTime === undefined) delete session.authTime;
  else session.authTime = authTime;
  session.csrfSecret = csrfSecret;
  session.meta = newMeta(ctx, now);
  if (returnTo !== undefined) session.freshSignIn = { at: now, for: returnTo };
  await session.regenerate();
}

/**
 * Keeps the challenge of a passkey ceremony in the session (in the database, so any instance can
 * check the answer), replacing an earlier one of the same ceremony.
 */
export function putPasskeyChallenge(ctx: Koa.Context, ceremony: PasskeyCeremony, challenge: string, now: number): void {
  const session = sessionOf(ctx);
  session.passkeyChallenges = { ...session.passkeyChallenges, [ceremony]: { challenge, expiresAt: now + LIFETIMES.passkeyChallenge } };
}

/** Takes the ceremony's challenge out of the session: undefined when there is none or it expired. */
export function takePasskeyChallenge(ctx: Koa.Context, ceremony: PasskeyCeremony, now: number): string | undefined {
  const session = sessionOf(ctx);
  const found = session.passkeyChallenges?.[ceremony];
  if (!found) return undefined;
  const rest = { ...session.passkeyChallenges };
  delete rest[ceremony];
  session.passkeyChallenges = Object.keys(rest).length > 0 ? rest : undefined;
  return now < found.expiresAt ? found.challenge : undefined;
}

/** Notes that the signed-in person just confirmed with one of the account's passkeys. */
export function notePasskeyConfirmation(ctx: Koa.Context, now: number): void {
  sessionOf(ctx).passkeyConfirmedAt = now;
}

/** The account this session was signed in to when a suspension signed it out, if that is how it ended. */
export function suspendedSessionUserId(ctx: Koa.Context): number | undefined {
  return sessionOf(ctx).suspendedUserId;
}

/**
 * What this session offers, besides a password, to confirm who `userId` is before a sensitive
 * change (src/accounts/confirmation.ts): when it last confirmed with a passkey, and when through a
 * linked upstream, if that confirmation was made for this account.
 */
export function sessionConfirmations(ctx: Koa.Context, userId: number): { passkeyConfirmedAt?: number; upstreamConfirmedAt?: number } {
  const session = sessionOf(ctx);
  const upstream = session.upstreamConfirmation;
  return {
    ...(session.passkeyConfirmedAt === undefined ? {} : { passkeyConfirmedAt: session.passkeyConfirmedAt }),
    ...(upstream?.userId === userId ? { upstreamConfirmedAt: upstream.at } : {}),
  };
}

/**
 * The password was right and a second step is owed: remembered in this session (under a fresh id,
 * as a sign-in would be) without signing it in.
 */
export async function startSecondStep(ctx: Koa.Context, step: Omit<SecondStep, 'id'>): Promise<void> {
  const session = sessionOf(ctx);
  session.secondStep = { ...step, id: randomSecret(16) };
  await session.regenerate();
}

/** The second step this session owes, if one is owed and not expired, with the id its attempts count by. */
export function pendingSecondStep(ctx: Koa.Context, now: number): (SecondStep & { id: string }) | undefined {
  const step = sessionOf(ctx).secondStep;
  if (!step || now - step.at >= LIFETIMES.secondStep || now < step.at) return undefined;
  return { ...step, id: step.id ?? `${step.userId}:${step.at}` };
}

/** Ends the second step this session owes: the password is asked again. */
export function endSecondStep(ctx: Koa.Context): void {
  delete sessionOf(ctx).secondStep;
}




/**
 * When the person authenticated for this session (OpenID Connect's auth_time), if it is signed in:
 * its sign-in, or what the upstream it signed in through proved, if earlier
 * (docs/account.md#re-authentication-through-an-upstream).
 */
/** When this browser signed in to its session (not the upstream's auth_time): what a pending link must be older than. */
export function sessionStartedAt(ctx: Koa.Context): number | undefined {
  return sessionOf(ctx).meta?.startedAt;
}

export function sessionAuthTime(ctx: Koa.Context): number | undefined {
  const session = sessionOf(ctx);
  return session.authTime ?? session.meta?.startedAt;
}

/**
 * How the person signed in to this (signed-in) session: RFC 8176 values, copied onto the codes
 * issued in it (the ID token's amr and acr); `['pwd']` for a session signed in before it was recorded.
 */
export function sessionAmr(ctx: Koa.Context): readonly string[] {
  return sessionOf(ctx).amr ?? ['pwd'];
}

/**
 * A new session's metadata. Its address is the one the sign-in history records for the same
 * sign-in (`ctx.ip`: the trusted proxy's X-Forwarded-For when TRUST_PROXY is on), cut alike.
 */
function newMeta(ctx: Koa.Context, now: number): SessionMeta {
  const userAgent = ctx.get('User-Agent').slice(0, MAX_USER_AGENT);
  const signInIp = ctx.ip.slice(0, MAX_IP);
  return { publicId: randomSecret(16), startedAt: now, lastSeenAt: now, userAgent: userAgent === '' ? null : userAgent, signInIp: signInIp === '' ? null : signInIp };
}

/**
 * Keeps a signed-in session's "last seen" roughly current (throttled to LAST_SEEN_EVERY_MS), and
 * gives a session signed in before sessions had a public id one now.
 */
export function noteActivity(ctx: Koa.Context, now: number): void {
  const session = sessionOf(ctx);
  if (session.userId === undefined) return;
  // Signed in long before this request: where from is not known (this request's address is not it).
  if (!session.meta) session.meta = { ...newMeta(ctx, now), signInIp: null };
  else if (now - session.meta.lastSeenAt >= LAST_SEEN_EVERY_MS) session.meta = { ...session.meta, lastSeenAt: now };
}

/**
 * Whether the signed-in session this request read has been ended since (a security event deleted
 * it, or a suspension marked it): a request whose body arrived slowly must not act on a session
 * that is over. Asked before a request that changes something acts (src/http/signed-in.ts).
 */
export async function sessionEndedSinceRead(ctx: Koa.Context, store: Pick<Store, 'sessions'>, now: number): Promise<boolean> {
  const loaded = ctx.state.loadedSession;
  const userId = sessionOf(ctx).userId;
  if (!loaded || loaded.userId === null || loaded.userId !== userId) return false;
  const data = await store.sessions.getSession(hashSecret(loaded.key), now);
  return data === undefined || (JSON.parse(data) as SessionData).userId !== userId;
}

/** The stored hash of this request's session id (from its signed cookie), if it has one. */
export function currentSessionIdHash(ctx: Koa.Context): string | undefined {
  const id = ctx.cookies.get(SESSION_COOKIE, { signed: true });
  return id ? hashSecret(id) : undefined;
}

export function endSession(ctx: Koa.Context): void {
  (ctx as unknown as { session: null }).session = null;
}
