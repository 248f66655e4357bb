/**
 * Changing the address: the current password, a link to the NEW address, a notice to the old one.
 * Nothing changes until the link is followed (src/accounts/email/verification.ts); the old address stays
 * in place and keeps its verified state until then.
 */
import { verifyPassword } from '../passwords.js';
import { Conflict, Forbidden, InvalidInput } from '../../domain/errors.js';
import { accountKey } from '../../security/rate-limit.js';
import { changeNoticeMessage, changeVerificationMessage } from '../../mail/messages.js';
import { hasPassword, type UserRecord } from '../../domain/users.js';
import { CONFIRM_FIRST, confirmationStands, type Confirmation } from '../confirmation.js';
import { normalizeEmail } from '../users.js';
import { mailNewLink, type EmailDeps } from './links.js';

/**
 * `proof`: the current password; an account without one (made through an upstream) confirms
 * instead, through a linked upstream or with a passkey (docs/account.md#confirming-through-a-linked-account).
 */
export async function requestEmailChange(deps: EmailDeps, user: UserRecord, input: { email: string; proof: Confirmation }): Promise<string> {
  await deps.limits.emailChange.consume(accountKey(user.id));
  if (!hasPassword(user)) {
    if (!confirmationStands(deps.now(), user, input.proof)) throw new InvalidInput(CONFIRM_FIRST);
  } else if (input.proof.password === undefined) throw new InvalidInput('Body field password is required');
  else if (!(await verifyPassword(input.proof.password, user.passwordHash))) throw new Forbidden('The current password is wrong');
  const email = normalizeEmail(input.email);
  if (email === user.email) throw new InvalidInput('This already is your email address');
  if (await deps.store.users.getUserByEmail(email)) throw new Conflict('Email address is already registered');
  await mailNewLink(deps, user.id, 'change', email, async (token) => {
    // The notice first: no change can complete without the current address having been told.
    await deps.mailer.send(changeNoticeMessage(deps.config.publicUrl, user.email, user.name, email));
    await deps.mailer.send(changeVerificationMessage(deps.config.publicUrl, email, user.name, token));
  });
  deps.audit('email_change_requested', { userId: user.id, newEmail: email });
  return email;
}
