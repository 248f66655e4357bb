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
import type { UserRecord } from '../domain/users.js';
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
 * What a signed-in person offers to confirm a factor change: the password, and/or when this
 * session last confirmed with one of the account's passkeys.
 */
export interface Confirmation {
  password?: string | undefined;
  passkeyConfirmedAt?: number | undefined;
}

const PASSWORD_REQUIRED = 'Body field password is required';

/**
 * The password again, or a passkey confirmation of this session within LIFETIMES.confirmation: 400
 * when neither is given, 403 for a wrong password (counted as confirmPassword counts).
 */
export async function confirmPasswordOrPasskey(deps: AccountDeps, user: UserRecord, proof: Confirmation, ip: string): Promise<void> {
  const at = proof.passkeyConfirmedAt;
  if (at !== undefined && deps.now() >= at && deps.now() - at < LIFETIMES.confirmation) return;
  if (proof.password === undefined) throw new InvalidInput(PASSWORD_REQUIRED);
  await confirmPassword(deps, user, proof.password, ip, 'The password is wrong');
}
