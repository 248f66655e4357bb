/**
 * One-time email links: a random token in the link, only its SHA-256 in the store, a purpose, an
 * expiry and a used mark. Every way a link can be wrong gets its own clear message and changes
 * nothing.
 */
import type { ScryptParams } from '../passwords.js';
import type { Audit } from '../../audit.js';
import type { Config } from '../../config.js';
import { InvalidInput, RateLimited } from '../../domain/errors.js';
import type { Mailer } from '../../mail/mailer.js';
import { hashSecret, randomSecret } from '../../security/secrets.js';
import { accountKey, type Limits } from '../../security/rate-limit.js';
import type { EmailLinkPurpose, EmailLinkRecord } from '../../domain/email-links.js';
import type { Store } from '../../store/types.js';
import { LIFETIMES } from '../../domain/lifetimes.js';

export interface EmailDeps {
  store: Store;
  now: () => number;
  limits: Limits;
  mailer: Mailer;
  audit: Audit;
  config: Pick<Config, 'publicUrl'>;
  /** The cost a reset's new password is hashed at (AccountDeps.passwordHashing). */
  passwordHashing?: ScryptParams;
}

/** How long a link lives, by what it is for (docs/decisions.md#lifetimes). */
const LINK_TTL_MS: Record<EmailLinkPurpose, number> = {
  verify: LIFETIMES.verificationLink,
  change: LIFETIMES.addressChangeLink,
  reset: LIFETIMES.passwordResetLink,
};
const LINK_BYTES = 32;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export const LINK_INVALID = 'This link is not valid: it may be incomplete or changed. Ask for a new one.';
const LINK_USED = 'This link has already been used. Ask for a new one if you still need it.';
const LINK_REPLACED = 'A newer link replaced this one: use the link in the latest mail, or ask for a new one.';
const LINK_REPLACED_AND_USED = 'A newer link replaced this one, and it has been used. Ask for a new one if you still need it.';
const LINK_EXPIRED = 'This link has expired. Ask for a new one.';

/** Stores a new link for the user and returns its token (the only copy: it goes into the mail). */
async function createLink(deps: EmailDeps, userId: number, purpose: EmailLinkPurpose, email: string | null): Promise<string> {
  const token = randomSecret(LINK_BYTES);
  const now = deps.now();
  await deps.store.emailLinks.createEmailLink({
    tokenHash: hashSecret(token),
    userId,
    purpose,
    email,
    expiresAt: now + LINK_TTL_MS[purpose],
    usedAt: null,
    createdAt: now,
  });
  return token;
}

/**
 * Stores a new link and hands its token to `mail`; when the mail cannot go, the link is removed
 * again, so no usable link exists that nobody was sent.
 */
export async function mailNewLink(
  deps: EmailDeps,
  userId: number,
  purpose: EmailLinkPurpose,
  email: string | null,
  mail: (token: string) => Promise<void>,
): Promise<void> {
  const token = await createLink(deps, userId, purpose, email);
  try {
    await mail(token);
  } catch (err) {
    await deps.store.emailLinks.deleteEmailLink(hashSecret(token));
    throw err;
  }
}

/**
 * A password-reset link for `userId`, within the per-account `forgotPasswordAccount` limit (shared
 * by forgot-password and a sign-up with a registered address): beyond it nothing is sent, silently.
 */
export async function mailResetLinkWithinLimit(deps: EmailDeps, userId: number, mail: (token: string) => Promise<void>): Promise<void> {
  try {
    await deps.limits.forgotPasswordAccount.consume(accountKey(userId));
  } catch (err) {
    if (err instanceof RateLimited) return;
    throw err;
  }
  await mailNewLink(deps, userId, 'reset', null, mail);
}

/** The stored link a token names, if it is one of `purposes` and can still be used; InvalidInput otherwise. */
export async function usableLink(deps: Pick<EmailDeps, 'store' | 'now'>, token: string, purposes: readonly EmailLinkPurpose[]): Promise<EmailLinkRecord> {
  if (!TOKEN_SHAPE.test(token)) throw new InvalidInput(LINK_INVALID);
  const link = await deps.store.emailLinks.getEmailLink(hashSecret(token));
  if (!link || !purposes.includes(link.purpose)) throw new InvalidInput(LINK_INVALID);
  if (link.usedAt !== null) throw new InvalidInput(await whyUsed(deps, link));
  if (link.expiresAt <= deps.now()) throw new InvalidInput(LINK_EXPIRED);
  return link;
}

/**
 * Why a link is marked used: redeemed itself, or voided when a newer link of the same purpose was
 * redeemed (both marked in the same transaction, so at the same time). A newer link the person
 * can still use is named as the way forward.
 */
async function whyUsed(deps: Pick<EmailDeps, 'store' | 'now'>, link: EmailLinkRecord): Promise<string> {
  const newer = (await deps.store.emailLinks.listEmailLinks(link.userId, link.purpose)).filter(
    (other) => other.createdAt > link.createdAt,
  );
  if (!newer.some((other) => other.usedAt === link.usedAt)) return LINK_USED;
  return newer.some((other) => other.usedAt === null && other.expiresAt > deps.now()) ? LINK_REPLACED : LINK_REPLACED_AND_USED;
}

/** Why a link that looked usable could not be redeemed (another request used it, or it just expired). */
export async function failedRedemption(deps: Pick<EmailDeps, 'store' | 'now'>, token: string, purposes: readonly EmailLinkPurpose[]): Promise<InvalidInput> {
  try {
    await usableLink(deps, token, purposes);
  } catch (err) {
    if (err instanceof InvalidInput) return err;
    throw err;
  }
  return new InvalidInput(LINK_USED);
}

