/**
 * Changing a password while signed in: the current password is required (src/accounts/confirmation.ts),
 * and what the table of security events says a password change ends goes with it, in one
 * transaction: every other session of the user, since whoever else held one may be the reason for
 * the change, every app's tokens (docs/oauth.md#refresh-tokens), codes and device approvals
 * (docs/account.md#what-each-security-event-ends). The session that made the change stays signed in.
 */
import type { Audit } from '../audit.js';
import { SIGN_IN_FIRST, Unauthenticated } from '../domain/errors.js';
import { SECURITY_EVENTS } from '../domain/security-events.js';
import { checkNewPassword } from '../users/users.js';
import type { AccountDeps } from './accounts.js';
import { hashPassword } from './passwords.js';
import { confirmPassword } from './confirmation.js';

export async function changePassword(
  deps: AccountDeps & { audit: Audit },
  input: { userId: number; currentPassword: string; newPassword: string; keepSessionIdHash: string | undefined },
  ip: string,
): Promise<void> {
  const user = await deps.store.getUser(input.userId);
  if (!user) throw new Unauthenticated(SIGN_IN_FIRST);
  checkNewPassword(input.newPassword);
  await confirmPassword(deps, user, input.currentPassword, ip, 'The current password is wrong');
  const passwordHash = await hashPassword(input.newPassword, deps.passwordHashing);
  const subject = { userId: user.id, ...(input.keepSessionIdHash === undefined ? {} : { keepSessionIdHash: input.keepSessionIdHash }) };
  const ended = await deps.store.recordSecurityEvent(subject, SECURITY_EVENTS.password_changed, deps.now(), { passwordHash });
  if (!ended) throw new Unauthenticated(SIGN_IN_FIRST);
  deps.audit('password_changed', { userId: user.id, endedSessions: ended.sessions });
}
