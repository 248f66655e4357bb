/**
 * The messages the service sends: plain text and HTML with the same words, links built from
 * PUBLIC_URL. A message carries its one-time link and nothing else secret (no password, no code,
 * no other account's data).
 */
import type { paths } from '../../generated/api.js';
import { html } from '../domain/html.js';
import type { MailKind, MailMessage } from './mailer.js';

/**
 * Every address a mail carries: PUBLIC_URL (config.ts drops its trailing slash), one of the
 * contract's paths, and the one-time token the page takes, if any.
 */
function mailedLink(publicUrl: string, path: keyof paths, token?: string): string {
  return token === undefined ? `${publicUrl}${path}` : `${publicUrl}${path}?token=${encodeURIComponent(token)}`;
}

function build(kind: MailKind, to: string, subject: string, paragraphs: string[], action?: { label: string; link: string }): MailMessage {
  const text = [...paragraphs.slice(0, 1), ...(action ? [`${action.label}:\n${action.link}`] : []), ...paragraphs.slice(1)].join('\n\n') + '\n';
  const body = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${subject}</title></head>
<body style="font-family: system-ui, sans-serif; line-height: 1.5">
<p>${paragraphs[0]}</p>
${action ? html`<p><a href="${action.link}">${action.label}</a></p><p style="font-size: small">Or paste this address into your browser: ${action.link}</p>` : ''}
${paragraphs.slice(1).map((p) => html`<p>${p}</p>`)}
</body></html>
`;
  return { kind, to, subject, text, html: body.value, link: action?.link };
}

export function verificationMessage(publicUrl: string, to: string, name: string, token: string): MailMessage {
  return build(
    'verify',
    to,
    'Confirm your email address',
    [
      `Hello ${name}, please confirm that this is your email address.`,
      'The link works once and for 24 hours. If you did not create an account, ignore this message: nothing happens without the link.',
    ],
    { label: 'Confirm your address', link: mailedLink(publicUrl, '/verify-email', token) },
  );
}

export function passwordResetMessage(publicUrl: string, to: string, name: string, token: string): MailMessage {
  return build(
    'reset',
    to,
    'Reset your password',
    [
      `Hello ${name}, someone (hopefully you) asked to reset the password of your account.`,
      'The link works once and for 1 hour. Setting a new password signs you out everywhere. If you did not ask, ignore this message: your password stays as it is.',
    ],
    { label: 'Choose a new password', link: mailedLink(publicUrl, '/reset-password', token) },
  );
}

/** To the owner of an address someone tried to sign up with: what happened, and a reset link. */
export function signUpAttemptMessage(publicUrl: string, to: string, name: string, token: string): MailMessage {
  return build(
    'sign_up_attempt',
    to,
    'Someone tried to sign up with your address',
    [
      `Hello ${name}, someone (perhaps you) tried to create a new account with this email address. It already belongs to your account ${name}, so no account was created.`,
      'If it was you and you forgot your password, choose a new one with this link (it works once and for 1 hour). If it was not you, ignore this message: nothing has changed.',
    ],
    { label: 'Choose a new password', link: mailedLink(publicUrl, '/reset-password', token) },
  );
}

export function changeVerificationMessage(publicUrl: string, to: string, name: string, token: string): MailMessage {
  return build(
    'change',
    to,
    'Confirm your new email address',
    [
      `Hello ${name}, please confirm that this is the new email address of your account.`,
      'Your account keeps its current address until you follow the link. The link works once and for 24 hours. If you did not ask for this, ignore this message.',
    ],
    { label: 'Use this address', link: mailedLink(publicUrl, '/verify-email', token) },
  );
}

export function changeNoticeMessage(publicUrl: string, to: string, name: string, newEmail: string): MailMessage {
  return build('change_notice', to, 'A change of your email address was requested', [
    `Hello ${name}, someone signed in to your account asked to change its email address to ${newEmail}.`,
    'Nothing changes until that address confirms it. If this was not you, sign in and change your password, or reset it at ' +
      `${mailedLink(publicUrl, '/forgot-password')}, then contact the operator of this service.`,
  ]);
}

/** A change to how an account signs in that its owner is told of (docs/account.md#notices). */
export type SecurityChange =
  | 'passkey_added'
  | 'passkey_removed'
  | 'totp_enabled'
  | 'totp_disabled'
  | 'recovery_codes_replaced'
  | 'recovery_code_used'
  | 'password_changed'
  | 'password_set'
  | 'factors_reset'
  | 'upstream_linked'
  | 'upstream_unlinked';

const SECURITY_CHANGES: Record<SecurityChange, { subject: string; what: string }> = {
  passkey_added: { subject: 'A passkey was added to your account', what: 'a passkey was added to your account' },
  passkey_removed: { subject: 'A passkey was removed from your account', what: 'a passkey was removed from your account' },
  totp_enabled: { subject: 'An authenticator app was switched on', what: 'an authenticator app was switched on for your account: signing in now asks for its code' },
  totp_disabled: { subject: 'The authenticator app was switched off', what: 'the authenticator app of your account was switched off: signing in no longer asks for its code' },
  recovery_codes_replaced: { subject: 'New recovery codes were made', what: 'a new set of recovery codes was made for your account; the earlier codes no longer work' },
  recovery_code_used: { subject: 'A recovery code was used to sign in', what: 'one of your recovery codes was used to sign in to your account; it does not work again' },
  password_changed: { subject: 'Your password was changed', what: 'the password of your account was changed' },
  password_set: { subject: 'A password was set for your account', what: 'a password was set for your account: your name and that password now sign in too' },
  upstream_linked: {
    subject: 'Another account was linked to yours',
    what: 'an account at another identity provider was linked to your account: signing in there now signs in to your account here',
  },
  upstream_unlinked: {
    subject: 'Another account was unlinked from yours',
    what: 'an account at another identity provider was unlinked from your account: signing in there no longer signs in to your account here',
  },
  factors_reset: {
    subject: 'Your passkeys and authenticator app were removed',
    what: "the operator of this service removed your account's passkeys, authenticator app and recovery codes; your password alone signs in now",
  },
};

/** A short notice of a sign-in change: what happened and what to do if it was not the owner. Nothing secret. */
export function securityNoticeMessage(publicUrl: string, to: string, name: string, change: SecurityChange): MailMessage {
  const { subject, what } = SECURITY_CHANGES[change];
  return build('security_notice', to, subject, [
    `Hello ${name}, ${what}.`,
    `If this was you, nothing needs doing. If it was not, reset your password at ${mailedLink(publicUrl, '/forgot-password')}, ` +
      `check your passkeys and authenticator app at ${mailedLink(publicUrl, '/account')}, then contact the operator of this service.`,
  ]);
}

/** The ways in a first proof of the address removed (docs/account.md#proving-the-address). */
export interface RemovedWaysIn {
  passkeys: number;
  upstreamIdentities: number;
  authenticatorApp: boolean;
}

function countOf(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * To the address an account's mailbox just proved for the first time: which ways in it had that
 * the mailbox's owner cannot be shown to have made, now removed. Counts only, nothing secret.
 */
export function waysInRemovedMessage(publicUrl: string, to: string, name: string, removed: RemovedWaysIn): MailMessage {
  const what = [
    ...(removed.passkeys > 0 ? [countOf(removed.passkeys, 'passkey', 'passkeys')] : []),
    ...(removed.upstreamIdentities > 0 ? [countOf(removed.upstreamIdentities, 'linked account at another identity provider', 'linked accounts at other identity providers')] : []),
    ...(removed.authenticatorApp ? ['the authenticator app and its recovery codes'] : []),
  ];
  return build('security_notice', to, 'Ways into your account were removed', [
    `Hello ${name}, your email address was proven for the first time, so the ways into your account that were added before it was ` +
      `(and that may not have been yours) were removed: ${what.join(', ')}. Every session and every app's access ended with them.`,
    `If you added them yourself, add them again at ${mailedLink(publicUrl, '/account')}. If you did not create this account, ` +
      `reset its password at ${mailedLink(publicUrl, '/forgot-password')}.`,
  ]);
}

/**
 * To the account's person when an app's spent refresh token was used again (docs/oauth.md#refresh-tokens):
 * someone other than the app may hold a copy, so that sign-in is over. Names the app, nothing secret.
 */
export function refreshTokenReuseMessage(publicUrl: string, to: string, name: string, appName: string): MailMessage {
  return build('security_notice', to, `${appName} was signed out of your account`, [
    `Hello ${name}, a sign-in token that ${appName} had already replaced was used again, so someone else may hold a copy of it. ` +
      `To be safe, every token of that sign-in was revoked: ${appName} will ask you to sign in again.`,
    `If you did not expect this, review the apps connected to your account at ${mailedLink(publicUrl, '/account')} and change your password, ` +
      'then contact the operator of this service.',
  ]);
}

/** "2026-12-01 12:00 UTC", as the sign-in refusal says it. */
function utcMinute(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * To the account's person when it is suspended (the reason and the end, as sign-in will refuse
 * with), or when the suspension is lifted (`suspension` null). Sent to their own address only.
 */
export function suspensionNoticeMessage(
  publicUrl: string,
  to: string,
  name: string,
  suspension: { reason: string; until: number | null } | null,
): MailMessage {
  if (suspension === null) {
    return build('suspension_notice', to, 'Your account is no longer suspended', [
      `Hello ${name}, the suspension of your account was lifted: you can sign in again at ${mailedLink(publicUrl, '/signin')}.`,
      'Apps you had authorized ask you to sign in again: the suspension signed you out of them.',
    ]);
  }
  const end = suspension.until === null ? 'until a moderator lifts it' : `until ${utcMinute(suspension.until)}`;
  return build('suspension_notice', to, 'Your account is suspended', [
    `Hello ${name}, your account was suspended ${end}. The reason given: ${suspension.reason}`,
    'While it lasts you cannot sign in, and apps cannot act for you; your public profile stays as it is. ' +
      'If you think this is a mistake, contact the operator of this service.',
  ]);
}
