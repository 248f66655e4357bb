/**
 * Asking a signed-in user for their password again before a change that a stolen session alone
 * must not be able to make (password change, account deletion). Counted like sign-in: every
 * attempt against the client address, failures against the account, and a locked account
 * refuses even the right password, so a hijacked session cannot guess the password faster than
 * the sign-in form could.
 */
import { Forbidden } from '../domain/errors.js';
import type { UserRecord } from '../store/types.js';
import type { AccountDeps } from './accounts.js';
import { verifyPassword } from './passwords.js';

export async function confirmPassword(deps: AccountDeps, user: UserRecord, password: string, ip: string, wrong: string): Promise<void> {
  await deps.limits.signInIp.consume(ip);
  const key = `user:${user.id}`;
  await deps.limits.signInAccount.check(key);
  if (!(await verifyPassword(password, user.passwordHash))) {
    await deps.limits.signInAccount.consume(key);
    throw new Forbidden(wrong);
  }
  await deps.limits.signInAccount.reset(key);
}
