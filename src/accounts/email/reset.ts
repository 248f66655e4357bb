/**
 * Forgotten passwords. The request always gets the same answer: after the rate limits (which key on
 * what the client sent, not on whether an account exists) the lookup and the mail run in the
 * background, so neither the answer nor its timing says whether the name or address is known.
 */
import { hashPassword } from '../passwords.js';
import { InvalidInput } from '../../domain/errors.js';
import { accountKey } from '../../security/rate-limit.js';
import { passwordResetMessage } from '../../mail/messages.js';
import { checkNewPassword } from '../users.js';
import { SECURITY_EVENTS } from '../../domain/security-events.js';
import { failedRedemption, LINK_INVALID, mailResetLinkWithinLimit, usableLink, type EmailDeps } from './links.js';

export async function requestPasswordReset(deps: EmailDeps, login: string, ip: string): Promise<void> {
  const key = login.trim().toLowerCase();
  if (key === '') throw new InvalidInput('Enter your name or email address');
  await deps.limits.forgotPasswordIp.consume(ip);
  await deps.limits.forgotPasswordLogin.consume(`login:${key}`);
  deps.mailer.background(async () => {
    const user = key.includes('@') ? await deps.store.users.getUserByEmail(key) : await deps.store.users.getUserByName(key);
    deps.audit('password_reset_requested', { userId: user?.id ?? null, ip });
    if (!user) return;
    // Per account, whichever name or address was asked: beyond it mails stop, silently.
    await mailResetLinkWithinLimit(deps, user.id, (token) =>
      deps.mailer.send(passwordResetMessage(deps.config.publicUrl, user.email, user.name, token)),
    );
  });
}

/** The name of the account a usable reset link belongs to (for its page); InvalidInput otherwise. */
export async function resetLinkOwner(deps: EmailDeps, token: string): Promise<string> {
  const link = await usableLink(deps, token, ['reset']);
  const user = await deps.store.users.getUser(link.userId);
  if (!user) throw new InvalidInput(LINK_INVALID);
  return user.name;
}

/**
 * Sets the new password through a reset link: uses it up, and ends what the security event
 * `password_reset` ends (docs/account.md#what-each-security-event-ends), in one transaction: the
 * user's other outstanding links (whoever asked for them may be who the reset locks out), every
 * session, every app's tokens, codes and device approvals (each app must ask the person again).
 * The link proves the mailbox: an address never proven before is verified by it, and the ways in
 * the account had go too (`address_proven`: whoever made them could not prove the address;
 * docs/account.md#proving-the-address).
 */
export async function resetPassword(deps: EmailDeps, token: string, password: string): Promise<void> {
  const link = await usableLink(deps, token, ['reset']);
  checkNewPassword(password);
  const passwordHash = await hashPassword(password, deps.passwordHashing);
  const owner = await deps.store.users.getUser(link.userId);
  const now = deps.now();
  // The address the link went to is still the account's (a change voids reset links with it).
  const unproven = owner !== undefined && owner.emailVerifiedAt === null;
  const ends = unproven ? SECURITY_EVENTS.address_proven : SECURITY_EVENTS.password_reset;
  const ended = await deps.store.emailLinks.redeemEmailLink(link.tokenHash, now, unproven ? { passwordHash, emailVerifiedAt: now, whileEmailIs: owner.email } : { passwordHash }, [], ends);
  if (!ended) throw await failedRedemption(deps, token, ['reset']);
  // The owner proved the mailbox: earlier failed sign-ins (perhaps why they are here) stop counting.
  await deps.limits.signInAccount.reset(accountKey(link.userId));
  deps.audit('password_reset', { userId: link.userId, endedSessions: ended.sessions });
  if (unproven) {
    deps.audit('email_verified', { userId: link.userId });
    const { passkeys, upstreamIdentities, authenticatorApp, sessions: endedSessions } = ended;
    deps.audit('address_proven', { userId: link.userId, by: 'reset', passkeys, upstreamIdentities, authenticatorApp, endedSessions });
  }
}
