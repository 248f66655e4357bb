/**
 * Changing a password while signed in (or setting a first one, setFirstPassword): the current password is required (src/accounts/confirmation.ts),
 * and what the table of security events says a password change ends goes with it, in one
 * transaction: every other session of the user, since whoever else held one may be the reason for
 * the change, every app's tokens (docs/oauth.md#refresh-tokens), codes and device approvals
 * (docs/account.md#what-each-security-event-ends). The session that made the change stays signed in.
 */
import type { Audit } from '../audit.js';
import { Conflict, SIGN_IN_FIRST, Unauthenticated } from '../domain/errors.js';
import { SECURITY_EVENTS } from '../domain/security-events.js';
import { checkNewPassword } from './users.js';
import type { AccountDeps } from './accounts.js';
import { hashPassword } from './passwords.js';
import { hasPassword } from '../domain/users.js';
import { confirmPassword, confirmPasswordOrPasskey, type Confirmation } from './confirmation.js';

export async function changePassword(
  deps: AccountDeps & { audit: Audit },
  input: { userId: number; currentPassword: string; newPassword: string; keepSessionIdHash: string | undefined },
  ip: string,
): Promise<void> {
  const user = await deps.store.users.getUser(input.userId);
  if (!user) throw new Unauthenticated(SIGN_IN_FIRST);
  if (!hasPassword(user)) throw new Conflict('Your account has no password yet: set one');
  checkNewPassword(input.newPassword);
  await confirmPassword(deps, user, input.currentPassword, ip, 'The current password is wrong');
  const passwordHash = await hashPassword(input.newPassword, deps.passwordHashing);
  const subject = { userId: user.id, ...(input.keepSessionIdHash === undefined ? {} : { keepSessionIdHash: input.keepSessionIdHash }) };
  const ended = await deps.store.securityEvents.recordSecurityEvent(subject, SECURITY_EVENTS.password_changed, deps.now(), { passwordHash });
  if (!ended) throw new Unauthenticated(SIGN_IN_FIRST);
  deps.audit('password_changed', { userId: user.id, endedSessions: ended.sessions });
}

const HAS_ONE = 'Your account has a password already: change it with the current one';

/**
 * An account without a password (made through an upstream) sets its first one
 * (docs/account.md#a-first-password): no current password is asked, since there is none, but a
 * recent confirmation of this session (through a linked upstream, or a passkey) is. A way in
 * added, as a passkey added: it ends nothing. The store writes it only while the account still has
 * no password, so of two requests racing one sets it and the other is 409. Audited (`password_set`:
 * its owner is mailed).
 */
export async function setFirstPassword(
  deps: AccountDeps & { audit: Audit },
  input: { userId: number; newPassword: string; proof: Omit<Confirmation, 'password'> },
  ip: string,
): Promise<void> {
  const user = await deps.store.users.getUser(input.userId);
  if (!user) throw new Unauthenticated(SIGN_IN_FIRST);
  if (hasPassword(user)) throw new Conflict(HAS_ONE);
  checkNewPassword(input.newPassword);
  await confirmPasswordOrPasskey(deps, user, input.proof, ip);
  const passwordHash = await hashPassword(input.newPassword, deps.passwordHashing);
  if (!(await deps.store.users.setFirstPassword(user.id, passwordHash))) throw new Conflict(HAS_ONE);
  deps.audit('password_set', { userId: user.id, ip });
}
