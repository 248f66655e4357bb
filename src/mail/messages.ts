/**
 * The messages the service sends: plain text and HTML with the same words, links built from
 * PUBLIC_URL. A message carries its one-time link and nothing else secret (no password, no code,
 * no other account's data).
 */
import type { paths } from '../../generated/api.js';
import { html } from '../pages/html.js';
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
