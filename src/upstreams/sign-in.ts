/**
 * Signing in through an upstream identity provider (docs/account.md#signing-in-through-another-account),
 * as Keycloak's first-broker-login and Kratos do it:
 * - an identity linked to an account signs that account in (`amr` `fed` and what the upstream
 *   asserted); the account's authenticator app is still asked for unless the upstream asserted `mfa`
 *   and the operator trusts its `mfa` (trustMfa: otherwise its `mfa` is dropped);
 * - an app's `prompt=login` or `max_age` is passed on, and the upstream's ID token must prove by its
 *   `auth_time` a sign-in there that new, or none is made here; the session's auth_time is the
 *   upstream's when it gave one (docs/account.md#re-authentication-through-an-upstream);
 * - a new identity with a verified address no account has makes an account once the person picks
 *   a public name; with an address an account has, it is linked only after that account signs in
 *   (with its own factors) and confirms: never silently;
 * - an account whose address was never proven is offered no link and takes none, from either side
 *   (docs/account.md#no-account-pre-hijacking): whoever made it may not own the address. The
 *   mailbox's owner proves it first (a reset), which removes every way in its maker made;
 * - an address the upstream does not say is verified makes and links nothing.
 * Every start and callback counts against the client address (limits.upstreamIp).
 */
import type { Logger } from 'pino';
import type { Audit, AuditEvents } from '../audit.js';
import { authenticatorAppOn } from '../accounts/second-factor.js';
import type { SignedIn } from '../accounts/sign-in.js';
import { BadGateway, Conflict, Forbidden, InvalidInput, NotFound, Unauthenticated, Unavailable, UniqueViolation } from '../domain/errors.js';
import type { PendingUpstreamIdentity, UpstreamSignInStart } from '../domain/upstream-sign-in.js';
import type { UpstreamRecord } from '../domain/upstreams.js';
import { hasPassword, type UserRecord } from '../domain/users.js';
import { refuseSuspended } from '../accounts/suspensions.js';
import { freshSignInAsked } from '../oauth/authorization-policy.js';
import type { Limits } from '../security/rate-limit.js';
import type { Store } from '../store/types.js';
import { createAccountWithoutPassword } from '../accounts/users.js';
import { authorizationRequest, readIdentity } from './client.js';
import { upstreamCallback, upstreamClientSecret } from './upstreams.js';

export interface UpstreamSignInDeps {
  store: Store;
  now: () => number;
  limits: Pick<Limits, 'upstreamIp'>;
  audit: Audit;
  /** Where a failure's warning goes, with what went wrong, for the operator (signInFailed). */
  logger: Pick<Logger, 'warn'>;
  /** SESSION_SECRET's values (they open the upstream's sealed client secret). */
  secrets: readonly string[];
  publicUrl: string;
}

/** The sign-in is done: who, how, and through which upstream (the history and audit name it). */
export interface SignedInThroughUpstream extends SignedIn {
  upstream: Pick<UpstreamRecord, 'slug' | 'name'>;
}

/** What a callback comes to. */
export type UpstreamOutcome =
  | { signedIn: SignedInThroughUpstream }
  /** The account has an authenticator app and the upstream asserted no second factor (or one not trusted): owed here. */
  | { owesSecondStep: UserRecord; amr: string[]; upstream: Pick<UpstreamRecord, 'slug' | 'name'>; authTime?: number }
  /** A new identity: a name to pick (`sign_up`) or an account to sign in to and confirm (`link`). */
  | { pending: PendingUpstreamIdentity }
  /** Linked to the signed-in account that started it from the account page. */
  | { linked: { userId: number; upstream: Pick<UpstreamRecord, 'slug' | 'name'> } }
  /**
   * The signed-in account that started it from the account page signed in again at the upstream,
   * as its linked identity, at `at` (the upstream's auth_time): a confirmation of who they are.
   */
  | { confirmed: { userId: number; upstream: Pick<UpstreamRecord, 'slug' | 'name'>; at: number } };

/** What the callback request carried. */
interface UpstreamCallback {
  url: URL;
  state: string | undefined;
  error: string | undefined;
}

const START_AGAIN = 'This sign-in did not start in this browser, or took too long: start again';

/**
 * How far an upstream's clock may be behind ours: an `auth_time` up to this much before the
 * sign-in started still proves a sign-in made for it (docs/account.md#re-authentication-through-an-upstream).
 */
const UPSTREAM_CLOCK_SKEW = 60 * 1000;

/** Why a fresh sign-in the app asked for is not made through `upstream`: it did not prove one. */
function notConfirmed(upstream: Pick<UpstreamRecord, 'name'>, verb: 'did not' | 'cannot'): Unauthenticated {
  return new Unauthenticated(`${upstream.name} ${verb} confirm a new sign-in: sign in with your password or passkey`);
}

/**
 * The upstream's `amr` as this service passes it on: its `mfa` counts only where the operator
 * trusts it (docs/account.md#trusting-an-upstreams-mfa); the other values say how it signed the
 * person in, and are kept.
 */
function countedAmr(upstream: Pick<UpstreamRecord, 'trustMfa'>, asserted: readonly string[]): string[] {
  return upstream.trustMfa ? [...asserted] : asserted.filter((v) => v !== 'mfa');
}

/** An enabled upstream by slug; NotFound for any other (disabled ones offer no sign-in). */
async function enabledUpstream(store: Store, slug: string): Promise<UpstreamRecord> {
  const upstream = await store.upstreams.getUpstream(slug);
  if (!upstream?.enabled) throw new NotFound('No such way to sign in is offered here');
  return upstream;
}

/** An enabled upstream as a page offers it: its button, and the origin the button's form ends at. */
export interface OfferedUpstream {
  slug: string;
  name: string;
  /**
   * Where the start sends the browser: the authorization endpoint's origin (an OAuth 2.0
   * upstream's), or the issuer's (OpenID Connect's authorization endpoint is on its issuer's
   * origin at every provider we know of).
   */
  origin: string;
}

/** The enabled upstreams, as the sign-in, sign-up and account pages offer them. */
export async function offeredUpstreams(store: Store): Promise<OfferedUpstream[]> {
  return (await store.upstreams.listUpstreams())
    .filter((u) => u.enabled)
    .map(({ slug, name, issuer, authorizationEndpoint }) => ({ slug, name, origin: new URL(authorizationEndpoint ?? issuer ?? 'invalid:').origin }));
}

type FailureReason = AuditEvents['upstream_sign_in_failed']['reason'];

/** Each reason as the operator's warning says it. */
const FAILURE_REASONS: Record<FailureReason, string> = {
  cancelled: 'the person cancelled there',
  refused: 'it answered an error',
  not_started: 'the callback matched no sign-in this browser started',
  unreachable: 'it cannot be reached',
  upstream_error: 'its answer cannot be used',
  secret_unreadable: 'its client secret cannot be unsealed with SESSION_SECRET (add the upstream again with the server\'s key)',
  email_not_verified: 'it did not say the address is verified',
  address_unproven: 'an account here has the address, never proven',
  not_fresh: 'it did not prove the fresh sign-in an app asked for',
  not_linked: 'a confirmation brought back an identity not linked to the account that asked',
};

/**
 * A sign-in through `upstream` that signed nobody in, at its start or its callback: audited
 * (`upstream_sign_in_failed` with the reason) and logged as a warning that names the upstream, the
 * reason and, from the error, what went wrong (src/upstreams/client.ts's failureDetail: never a
 * secret), so the operator learns what the person was only told to ask about.
 */
function signInFailed(deps: UpstreamSignInDeps, upstream: Pick<UpstreamRecord, 'slug' | 'name'>, ip: string, reason: FailureReason, err?: unknown): void {
  deps.audit('upstream_sign_in_failed', { upstream: upstream.slug, ip, reason });
  const detail = (err as { detail?: unknown } | undefined)?.detail;
  deps.logger.warn(
    { upstream: upstream.slug, reason, ...(typeof detail === 'string' ? { detail } : {}) },
    `signing in through ${upstream.name} failed: ${FAILURE_REASONS[reason]}${typeof detail === 'string' ? ` (${detail})` : ''}`,
  );
}

/** An error talking to the upstream, as signInFailed records it; undefined for what is not the upstream's (a bug). */
function upstreamFailureReason(err: unknown): FailureReason | undefined {
  if (err instanceof Unavailable) return 'unreachable';
  if (err instanceof BadGateway || err instanceof InvalidInput) return 'upstream_error';
  return undefined;
}

async function clientSecretOf(deps: UpstreamSignInDeps, upstream: UpstreamRecord, ip: string): Promise<string> {
  const secret = await upstreamClientSecret(deps.secrets, upstream);
  // SESSION_SECRET changed without its old value kept: the operator must add the upstream again.
  if (secret === undefined) {
    signInFailed(deps, upstream, ip, 'secret_unreadable');
    throw new Unavailable(`Signing in with ${upstream.name} is not possible now: ask the operator`);
  }
  return secret;
}

/** Starts a sign-in through `slug`: where to send the browser, and what its session keeps for the callback. */
export async function startUpstreamSignIn(
  deps: UpstreamSignInDeps,
  slug: string,
  ip: string,
  options: { returnTo?: string | undefined; linkTo?: number; confirmFor?: number },
): Promise<{ url: string; start: UpstreamSignInStart }> {
  await deps.limits.upstreamIp.consume(ip);
  const upstream = await enabledUpstream(deps.store, slug);
  if (options.linkTo !== undefined) await linkableAccount(deps, options.linkTo);
  if (options.confirmFor !== undefined) await confirmableThrough(deps, options.confirmFor, upstream);
  const now = deps.now();
  // The app's prompt=login or max_age, passed on, or a confirmation's own new sign-in; a plain
  // OAuth 2.0 upstream has no ID token to prove it with.
  const fresh = options.confirmFor !== undefined ? { login: true as const } : options.linkTo === undefined ? freshSignInAsked(options.returnTo) : undefined;
  if (fresh !== undefined && upstream.kind !== 'oidc') {
    signInFailed(deps, upstream, ip, 'not_fresh');
    throw notConfirmed(upstream, 'cannot');
  }
  const clientSecret = await clientSecretOf(deps, upstream, ip);
  let request;
  try {
    request = await authorizationRequest(upstream, clientSecret, upstreamCallback(deps.publicUrl, slug), now, fresh);
  } catch (err) {
    const reason = upstreamFailureReason(err);
    if (reason) signInFailed(deps, upstream, ip, reason, err);
    throw err;
  }
  const { url, checks } = request;
  return {
    url,
    start: {
      slug,
      ...checks,
      at: now,
      ...(options.returnTo === undefined ? {} : { returnTo: options.returnTo }),
      ...(options.linkTo === undefined ? {} : { linkTo: options.linkTo }),
      ...(options.confirmFor === undefined ? {} : { confirmFor: options.confirmFor }),
      ...(fresh === undefined ? {} : { freshSince: 'login' in fresh ? now : now - fresh.maxAge * 1000 }),
    },
  };
}

/**
 * Whether `userId` may confirm who they are through `upstream`: an account without a password
 * (one with a password confirms with it: docs/account.md#confirming-through-a-linked-account)
 * whose identity there is linked.
 */
async function confirmableThrough(deps: UpstreamSignInDeps, userId: number, upstream: UpstreamRecord): Promise<void> {
  const user = await deps.store.users.getUser(userId);
  if (!user) throw new Unauthenticated(START_AGAIN);
  if (hasPassword(user)) throw new Conflict('Your account has a password: confirm with it, or with a passkey');
  if (!(await deps.store.upstreamIdentities.listUpstreamIdentities(userId)).some((l) => l.upstreamSlug === upstream.slug)) {
    throw new Forbidden(`No ${upstream.name} account is linked to yours: confirm another way`);
  }
}

const VERIFY_FIRST = 'Verify your email address before you link another account to this one';

/** The account `userId` when another account may be linked to it: its address proven (Forbidden otherwise). */
async function linkableAccount(deps: UpstreamSignInDeps, userId: number): Promise<UserRecord> {
  const user = await deps.store.users.getUser(userId);
  if (!user) throw new Unauthenticated(START_AGAIN);
  if (user.emailVerifiedAt === null) throw new Forbidden(VERIFY_FIRST);
  return user;
}

/** The upstream's error code as shown: printable ASCII only, or nothing. */
function errorCode(error: string): string {
  return /^[\x21-\x7e]{1,64}$/.test(error) ? error : 'error';
}

/**
 * The callback of the sign-in `start` this browser's session held (taken out of it by the caller:
 * undefined when there was none, or it took too long). `signedInUserId`: whom the session is
 * signed in as now.
 */
export async function finishUpstreamSignIn(
  deps: UpstreamSignInDeps,
  slug: string,
  start: UpstreamSignInStart | undefined,
  callback: UpstreamCallback,
  ip: string,
  signedInUserId: number | undefined,
): Promise<UpstreamOutcome> {
  await deps.limits.upstreamIp.consume(ip);
  const upstream = await enabledUpstream(deps.store, slug);
  const named = { slug: upstream.slug, name: upstream.name };
  const failed = (reason: FailureReason) => signInFailed(deps, upstream, ip, reason);
  if (callback.error !== undefined) {
    failed(callback.error === 'access_denied' ? 'cancelled' : 'refused');
    throw new InvalidInput(callback.error === 'access_denied' ? `You cancelled signing in with ${upstream.name}` : `${upstream.name} refused the sign-in (${errorCode(callback.error)})`);
  }
  const startedFor = start?.linkTo ?? start?.confirmFor;
  if (!start || callback.state !== start.state || (startedFor !== undefined && startedFor !== signedInUserId)) {
    failed('not_started');
    throw new InvalidInput(START_AGAIN);
  }
  const clientSecret = await clientSecretOf(deps, upstream, ip);
  let claims;
  try {
    claims = await readIdentity(upstream, clientSecret, start, callback.url, deps.now());
  } catch (err) {
    const reason = upstreamFailureReason(err);
    if (reason) signInFailed(deps, upstream, ip, reason, err);
    throw err;
  }
  // A sign-in the app asked to be fresh is made only on the upstream's proof: never a fresh
  // auth_time here that the upstream did not give.
  if (start.freshSince !== undefined && (claims.authTime === undefined || claims.authTime < start.freshSince - UPSTREAM_CLOCK_SKEW)) {
    failed('not_fresh');
    throw notConfirmed(upstream, 'did not');
  }
  claims = { ...claims, amr: countedAmr(upstream, claims.amr) };
  const linked = await deps.store.upstreamIdentities.findUpstreamIdentity(slug, claims.subject);

  if (start.confirmFor !== undefined) {
    // Only the identity linked to this very account confirms it: another account at the upstream
    // (anyone's, or one linked to another account here) proves nothing about this one.
    if (linked?.userId !== start.confirmFor) {
      failed('not_linked');
      throw new Forbidden(`This ${upstream.name} account is not the one linked to yours: nothing was confirmed`);
    }
    // Counted from when the person signed in there (never later than now), not from the callback.
    const at = Math.min(claims.authTime ?? deps.now(), deps.now());
    await deps.store.upstreamIdentities.touchUpstreamIdentity(linked.id, deps.now());
    deps.audit('upstream_confirmed', { userId: start.confirmFor, upstream: slug, ip });
    return { confirmed: { userId: start.confirmFor, upstream: named, at } };
  }

  if (start.linkTo !== undefined) {
    if (linked && linked.userId !== start.linkTo) throw new Conflict(`This ${upstream.name} account is linked to another account here`);
    if (!linked) {
      await linkableAccount(deps, start.linkTo);
      await linkIdentity(deps, start.linkTo, upstream, claims.subject, claims.email, ip);
    }
    return { linked: { userId: start.linkTo, upstream: named } };
  }

  if (linked) {
    const user = await deps.store.users.getUser(linked.userId);
    // The link goes with its account: only a deletion racing this sign-in gets here.
    if (!user) throw new Unauthenticated(START_AGAIN);
    refuseSuspended(user, deps.now());
    await deps.store.upstreamIdentities.touchUpstreamIdentity(linked.id, deps.now());
    const amr = ['fed', ...claims.amr.filter((v) => v !== 'fed')];
    const { authTime } = claims;
    if (!claims.amr.includes('mfa') && (await authenticatorAppOn(deps.store, user.id))) return { owesSecondStep: user, amr, upstream: named, authTime };
    return { signedIn: { user, amr, upstream: named, authTime } };
  }

  if (claims.email === null || !claims.emailVerified) {
    failed('email_not_verified');
    throw new Forbidden(
      claims.email === null
        ? `${upstream.name} did not give an email address: sign up with a password instead`
        : `${upstream.name} does not say that ${claims.email} is verified: verify it there, or sign up with a password`,
    );
  }
  const owner = await deps.store.users.getUserByEmail(claims.email);
  if (owner && owner.emailVerifiedAt === null) {
    failed('address_unproven');
    throw new Forbidden(
      `An account here uses ${claims.email}, but that address was never proven to be its owner's, so it cannot be linked. ` +
        `If it is yours, reset its password (the mail proves the address and removes every other way into that account), then sign in with ${upstream.name} again.`,
    );
  }
  return {
    pending: {
      ...claims,
      slug,
      upstreamName: upstream.name,
      at: deps.now(),
      ...(start.returnTo === undefined ? {} : { returnTo: start.returnTo }),
      ...(owner ? { next: 'link', linkUserId: owner.id } : { next: 'sign_up' }),
    },
  };
}

/** Links an identity to `userId`, audited (`upstream_identity_linked`: its owner is told); Conflict when another account has it. */
async function linkIdentity(deps: UpstreamSignInDeps, userId: number, upstream: Pick<UpstreamRecord, 'slug' | 'name'>, subject: string, email: string | null, ip: string): Promise<void> {
  try {
    await deps.store.upstreamIdentities.linkUpstreamIdentity({ userId, upstreamSlug: upstream.slug, subject, email, createdAt: deps.now() });
  } catch (err) {
    if (err instanceof UniqueViolation) throw new Conflict(`This ${upstream.name} account is linked to another account here`);
    throw err;
  }
  deps.audit('upstream_identity_linked', { userId, upstream: upstream.slug, ip });
}

/**
 * The account a pending `sign_up` identity asked for, with the public name picked: no password,
 * the upstream's verified address verified, the identity linked, in one transaction (no account
 * is left without its way in). Conflict for a taken name or address.
 */
export async function signUpThroughUpstream(
  deps: UpstreamSignInDeps,
  pending: PendingUpstreamIdentity,
  name: string,
  client: { ip: string; userAgent: string },
): Promise<SignedInThroughUpstream> {
  if (pending.email === null || !pending.emailVerified) throw new Forbidden('This address is not verified');
  const user = await createAccountWithoutPassword(deps, { name, email: pending.email, upstream: { slug: pending.slug, name: pending.upstreamName, subject: pending.subject } });
  deps.audit('sign_up', { userId: user.id, ...client, upstream: pending.slug });
  return { user, amr: ['fed', ...pending.amr.filter((v) => v !== 'fed')], upstream: { slug: pending.slug, name: pending.upstreamName }, authTime: pending.authTime };
}

/**
 * Whether this session may confirm the pending link: signed in to the account with the upstream's
 * address, and signed in after the upstream sign-in (so a session of that account taken earlier,
 * or of any other account, cannot take the link).
 */
export function mayConfirmLink(pending: PendingUpstreamIdentity, userId: number | undefined, signedInAt: number | undefined): boolean {
  return userId !== undefined && userId === pending.linkUserId && signedInAt !== undefined && signedInAt >= pending.at;
}

/**
 * Links a pending `link` identity to `user`, who signed in to that account to confirm it
 * (mayConfirmLink), while what offered the link still holds: the account's address is the
 * identity's, proven, and no credential changed since the identity came back (a change ends
 * pending link confirmations: docs/account.md#what-each-security-event-ends).
 */
export async function confirmUpstreamLink(deps: UpstreamSignInDeps, user: UserRecord, signedInAt: number | undefined, pending: PendingUpstreamIdentity, ip: string): Promise<void> {
  if (!mayConfirmLink(pending, user.id, signedInAt)) throw new Unauthenticated('Sign in to the account with this address first');
  if (user.email !== pending.email || (user.credentialsChangedAt !== null && user.credentialsChangedAt > pending.at)) {
    throw new Conflict('This link is no longer offered: the account changed since. Sign in with it again');
  }
  if (user.emailVerifiedAt === null) throw new Forbidden(VERIFY_FIRST);
  const upstream = await enabledUpstream(deps.store, pending.slug);
  await linkIdentity(deps, user.id, upstream, pending.subject, pending.email, ip);
}
