/**
 * Verified addresses: sign-up sends a verification link, a signed-in user can have it sent again
 * (rate-limited), and following a link proves the address it was sent to. The same link route also
 * completes a change of address (src/accounts/email/change.ts), whose link proves the new address.
 */
import type { SignUpOutcome } from '../accounts.js';
import { Conflict, InvalidInput } from '../../domain/errors.js';
import { accountKey } from '../../security/rate-limit.js';
import { signUpAttemptMessage, verificationMessage } from '../../mail/messages.js';
import { hashSecret } from '../../security/secrets.js';
import { UniqueViolation } from '../../domain/errors.js';
import type { UserRecord } from '../../domain/users.js';
import { NOTHING, SECURITY_EVENTS } from '../../domain/security-events.js';
import { failedRedemption, mailNewLink, mailResetLinkWithinLimit, usableLink, type EmailDeps } from './links.js';

/** Mails a new verification link for the user's current address; throws Unavailable when the mail cannot go. */
async function sendVerification(deps: EmailDeps, user: Pick<UserRecord, 'id' | 'name' | 'email'>): Promise<void> {
  await mailNewLink(deps, user.id, 'verify', user.email, (token) =>
    deps.mailer.send(verificationMessage(deps.config.publicUrl, user.email, user.name, token)),
  );
}

/**
 * The mail of a sign-up, sent after the answer (so its timing says nothing): to a new account its
 * verification link; to the owner of an address someone tried to sign up with, a notice with a
 * password-reset link, at most `forgotPasswordAccount` of them (beyond it they are dropped
 * silently, as forgot-password's are). A new account stands even when its mail cannot go (the
 * failure is logged): its page says the address is not verified and offers to send it again.
 */
export function mailAfterSignUp(deps: EmailDeps, outcome: SignUpOutcome): void {
  deps.mailer.background(async () => {
    if ('created' in outcome) {
      await sendVerification(deps, outcome.created);
      return;
    }
    const owner = outcome.addressOwner;
    await mailResetLinkWithinLimit(deps, owner.id, (token) =>
      deps.mailer.send(signUpAttemptMessage(deps.config.publicUrl, owner.email, owner.name, token)),
    );
  });
}

export async function resendVerification(deps: EmailDeps, user: UserRecord): Promise<void> {
  if (user.emailVerifiedAt !== null) throw new InvalidInput('Your email address is already verified');
  await deps.limits.verificationResend.consume(accountKey(user.id));
  await sendVerification(deps, user);
}

/**
 * `again`: the link could not be used, but what it was for is done (followed twice, say).
 * `sign_in_first`: a usable link followed in a browser not signed in to its account: nothing done.
 */
interface FollowedLink {
  kind: 'verified' | 'changed' | 'sign_in_first';
  email: string;
  again?: true;
}

/**
 * What a verification or change-of-address link that cannot be used any more was for, when that
 * is done anyway: the account's address is the link's, and verified. Opening a link twice then
 * says so instead of an error (the token proves as much as the first time it was opened).
 */
async function alreadyDone(deps: EmailDeps, token: string): Promise<FollowedLink | undefined> {
  const link = await deps.store.emailLinks.getEmailLink(hashSecret(token));
  if (!link || (link.purpose !== 'verify' && link.purpose !== 'change') || link.email === null) return undefined;
  const user = await deps.store.users.getUser(link.userId);
  if (!user || user.email !== link.email || user.emailVerifiedAt === null) return undefined;
  return { kind: link.purpose === 'verify' ? 'verified' : 'changed', email: link.email, again: true };
}

/**
 * Follows a verification or change-of-address link; every failure is InvalidInput or Conflict and
 * changes nothing. `signedInUserId`: whom this browser is signed in as. A link proves the mailbox,
 * not who made the account: it is used only in a browser signed in to its account, which proves
 * both, so an address is never proven for an account its mailbox's owner cannot sign in to
 * (docs/account.md#proving-the-address). Elsewhere nothing is done, and the page asks to sign in.
 */
export async function followEmailLink(deps: EmailDeps, token: string, signedInUserId?: number): Promise<FollowedLink> {
  const purposes = ['verify', 'change'] as const;
  let link;
  try {
    link = await usableLink(deps, token, purposes);
  } catch (err) {
    const done = err instanceof InvalidInput ? await alreadyDone(deps, token) : undefined;
    if (done) return done;
    throw err;
  }
  const email = link.email!;
  if (link.userId !== signedInUserId) return { kind: 'sign_in_first', email };
  const now = deps.now();
  if (link.purpose === 'verify') {
    // Proves only the address it was sent to: useless once the account has moved to another one.
    const redeemed = await deps.store.emailLinks.redeemEmailLink(link.tokenHash, now, { emailVerifiedAt: now, whileEmailIs: email }, ['verify'], NOTHING);
    if (!redeemed) {
      const user = await deps.store.users.getUser(link.userId);
      if (user && user.email !== email) throw new InvalidInput('This link is for an address your account no longer uses');
      // Another request (a second click) used it a moment ago.
      const done = await alreadyDone(deps, token);
      if (done) return done;
      throw await failedRedemption(deps, token, purposes);
    }
    deps.audit('email_verified', { userId: link.userId });
    return { kind: 'verified', email };
  }
  const before = await deps.store.users.getUser(link.userId);
  let redeemed;
  try {
    redeemed = await deps.store.emailLinks.redeemEmailLink(link.tokenHash, now, { email, emailVerifiedAt: now }, [], SECURITY_EVENTS.email_changed);
  } catch (err) {
    if (err instanceof UniqueViolation) throw new Conflict('Another account uses this address by now, so the change was not made');
    throw err;
  }
  if (!redeemed) throw await failedRedemption(deps, token, purposes);
  deps.audit('email_changed', { userId: link.userId, oldEmail: before?.email, newEmail: email });
  return { kind: 'changed', email };
}
