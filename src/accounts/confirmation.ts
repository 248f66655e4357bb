/**
 * Confirming who the signed-in person is: their password again (or, where a passkey may stand in
 * for it, a recent confirmation with one of their passkeys) before a change that a stolen session
 * alone must not be able to make (password change, account deletion, a change of factors). Counted
 * like sign-in: every attempt against the client address, each guess against the account (given
 * back when right), and a locked account refuses even the right password, so a hijacked session
 * cannot guess the password faster than the sign-in form could.
 */
import { Forbidden, InvalidInput } from '../domain/errors.js';
import { accountKey, attempt } from '../security/rate-limit.js';
import { hasPassword, type UserRecord } from '../domain/users.js';
import type { AccountDeps } from './accounts.js';
import { verifyPassword } from './passwords.js';
import { countSignInAttempt } from './sign-in-attempts.js';
import { LIFETIMES } from '../domain/lifetimes.js';

export async function confirmPassword(deps: AccountDeps, user: UserRecord, password: string, ip: string, wrong: string): Promise<void> {
  // Counted as a sign-in attempt; its refusal is the confirmation's, not audited as a failed sign-in.
  await countSignInAttempt({ limits: deps.limits }, ip);
  await attempt(deps.limits.signInAccount, accountKey(user.id), async () => {
    if (!(await verifyPassword(password, user.passwordHash))) throw new Forbidden(wrong);
  });
}


/**
 * What a signed-in person offers to confirm a sensitive change: the password, and/or when this
 * session last confirmed with one of the account's passkeys, or (an account without a password)
 * by a new sign-in at an upstream where the account is linked.
 */
export interface Confirmation {
  password?: string | undefined;
  passkeyConfirmedAt?: number | undefined;
  upstreamConfirmedAt?: number | undefined;
}

const PASSWORD_REQUIRED = 'Body field password is required';
/** What an account without a password is told when no confirmation stands in for the password it does not have. */
export const CONFIRM_FIRST = 'Confirm it is you first, through an account linked to yours or with a passkey';

/**
 * Whether a confirmation of this session stands in for the password at `now`: one with a passkey
 * within LIFETIMES.confirmation, or, for an account without a password only, one through a linked
 * upstream within it.
 */
export function confirmationStands(now: number, user: UserRecord, proof: Omit<Confirmation, 'password'>): boolean {
  const recent = (at: number | undefined) => at !== undefined && now >= at && now - at < LIFETIMES.confirmation;
  return recent(proof.passkeyConfirmedAt) || (!hasPassword(user) && recent(proof.upstreamConfirmedAt));
}

/**
 * The password again, or a confirmation of this session within LIFETIMES.confirmation: with a
 * passkey, or, for an account without a password only, through a linked upstream. An account
 * with a password keeps asking for it (or a passkey): an upstream's sign-in is a way in, not a
 * proof that the password's holder is here (docs/account.md#confirming-through-a-linked-account).
 * 400 when nothing is given, 403 for a wrong password (counted as confirmPassword counts).
 */
export async function confirmPasswordOrPasskey(deps: AccountDeps, user: UserRecord, proof: Confirmation, ip: string): Promise<void> {
  if (confirmationStands(deps.now(), user, proof)) return;
  if (proof.password === undefined) throw new InvalidInput(hasPassword(user) ? PASSWORD_REQUIRED : CONFIRM_FIRST);
  await confirmPassword(deps, user, proof.password, ip, 'The password is wrong');
}
