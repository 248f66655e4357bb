/**
 * Signing in (docs/account.md): with the password, with a passkey, or with the second step a
 * password left owed (an authenticator app switched on). Each answers the person it signs in and
 * how (RFC 8176 `amr`: the ID token's amr and acr), or, for a right password of an account with
 * an authenticator app, that a second step is owed. A suspended account is refused whichever way
 * (403, with the reason and the end: docs/moderation.md#suspension). The session that follows is
 * the HTTP shell's (src/http/signed-in.ts).
 */
import { Unauthenticated } from '../domain/errors.js';
import type { UserRecord } from '../domain/users.js';
import { refuseSuspended } from './suspensions.js';
import { signIn } from './accounts.js';
import { verifyPasskeySignIn } from './passkeys.js';
import { authenticatorAppOn, secondFactorDeps, verifySecondFactor } from './second-factor.js';

/** What signing in needs: the store, clock, limits and audit trail, SESSION_SECRET and PUBLIC_URL. */
type SignInDeps = Parameters<typeof secondFactorDeps>[0] & Parameters<typeof verifyPasskeySignIn>[0];

/** Signed in: who, how, and through which upstream identity provider, if through one (src/upstreams/sign-in.ts). */
export interface SignedIn {
  user: UserRecord;
  amr: readonly string[];
  upstream?: { slug: string; name: string };
  /** When the person authenticated, where that was before this sign-in: the upstream's `auth_time`. Absent: now. */
  authTime?: number;
}

/** The password was right; the account owes a second step before it is signed in. */
interface OwesSecondStep {
  owesSecondStep: UserRecord;
}

/**
 * A second step owed (src/sessions/session.ts pendingSecondStep): whose, the id its wrong codes
 * count by, and how the first step signed in (a password when not recorded; an upstream's sign-in).
 */
interface OwedStep {
  userId: number;
  id: string;
  amr?: readonly string[];
  upstream?: { slug: string; name: string };
  authTime?: number;
}

/** Every sign-in ends here: a suspended account is signed in nowhere. */
function admitted(deps: Pick<SignInDeps, 'now'>, user: UserRecord, amr: readonly string[]): SignedIn {
  refuseSuspended(user, deps.now());
  return { user, amr };
}

/** The name (or email) and password; an authenticator app switched on: the password alone does not sign in. */
export async function signInWithPassword(deps: SignInDeps, input: { login: string; password: string }, ip: string): Promise<SignedIn | OwesSecondStep> {
  const user = await signIn(deps, input, ip);
  if (await authenticatorAppOn(deps.store, user.id)) {
    refuseSuspended(user, deps.now());
    return { owesSecondStep: user };
  }
  return admitted(deps, user, ['pwd']);
}

/** The browser's answer to the passkey sign-in options whose challenge was `challenge` (src/accounts/passkeys.ts). */
export async function signInWithPasskey(deps: SignInDeps, input: Parameters<typeof verifyPasskeySignIn>[1], ip: string): Promise<SignedIn> {
  const { userId, amr } = await verifyPasskeySignIn(deps, input, ip);
  const user = await deps.store.users.getUser(userId);
  // A passkey goes with its user: only a deletion racing this sign-in gets here.
  if (!user) throw new Unauthenticated('This passkey is not registered here');
  return admitted(deps, user, amr);
}

/**
 * The code of the second step `step` owes (none: it expired or was never started): an
 * authenticator code or a recovery code (src/accounts/second-factor.ts verifySecondFactor; over
 * the step's limit it throws SecondStepEnded, and the password is asked again). A recovery code
 * used is audited (`recovery_code_used`), and so told to the owner (src/accounts/notices.ts).
 */
export async function signInSecondStep(deps: SignInDeps, step: OwedStep | undefined, typed: string, ip: string): Promise<SignedIn> {
  const user = step && (await deps.store.users.getUser(step.userId));
  if (!step || !user) throw new Unauthenticated('This sign-in took too long or was not started: start over with your password');
  await verifySecondFactor(secondFactorDeps(deps), user, typed, ip, step.id);
  const first = step.amr ?? ['pwd'];
  const signedIn = admitted(deps, user, [...new Set([...first, 'otp', 'mfa'])]);
  // The session's auth_time is its first factor's, when the upstream proved an earlier one.
  return step.upstream ? { ...signedIn, upstream: step.upstream, ...(step.authTime === undefined ? {} : { authTime: step.authTime }) } : signedIn;
}
