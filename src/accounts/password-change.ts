/**
 * Changing a password while signed in: the current password is required (src/accounts/confirmation.ts),
 * and every other session of the user ends, since whoever else held one may be the reason for the
 * change, and so do the refresh tokens every app holds (docs/oauth.md#refresh-tokens). The session
 * that made the change stays signed in.
 */
import type { Audit } from '../audit.js';
import { SIGN_IN_FIRST, Unauthenticated } from '../domain/errors.js';
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
  await deps.store.setUserPassword(user.id, await hashPassword(input.newPassword, deps.passwordHashing));
  const ended = await deps.store.deleteUserSessions(user.id, input.keepSessionIdHash);
  await deps.store.revokeUserRefreshTokens(user.id, deps.now());
  deps.audit('password_changed', { userId: user.id, endedSessions: ended });
}
