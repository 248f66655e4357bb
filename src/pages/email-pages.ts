/**
 * The pages of issue 14 (verified addresses, password reset, change of address), and the sections
 * it adds to the account and consent pages, kept here so those pages change in one place each.
 */
import { html, type SafeHtml } from '../domain/html.js';
import { layout, type PageUser } from './html.js';
import { confirmFirstNote, type PageConfirmations } from './confirmation.js';
import { resultSlot } from './result-slot.js';
import type { LocalPath } from '../security/return-paths.js';

interface Common {
  user: PageUser | undefined;
  csrfToken: string;
}

function message(text: string | undefined): SafeHtml | '' {
  return text ? html`<p class="error" id="error-message">${text}</p>` : '';
}

export function forgotPasswordPage(o: Common & { error?: string; login?: string }): string {
  return layout({
    ...o,
    title: 'Forgot your password?',
    body: html`<h1>Forgot your password?</h1>
${message(o.error)}
<p>Give your name or email address. If an account matches, we mail it a link to choose a new password.</p>
<form method="post" action="/forgot-password" class="stack">
<input type="hidden" name="_csrf" value="${o.csrfToken}">
<label>Name or email <input name="login" autocomplete="username" required maxlength="254" value="${o.login ?? ''}"></label>
<button type="submit">Send the link</button>
</form>
<p><a href="/signin">Back to sign in</a></p>`,
  });
}

/** The one answer to every forgot-password request that passes the rate limits. */
export function forgotPasswordSentPage(o: Common): string {
  return layout({
    ...o,
    title: 'Check your mail',
    body: html`<h1>Check your mail</h1>
<p id="notice">If an account matches what you entered, a link to choose a new password is on its way to its email address. The link works once and for 1 hour.</p>
<p><a href="/signin">Back to sign in</a></p>`,
  });
}

export function resetPasswordPage(o: Common & { token: string; name: string; error?: string }): string {
  return layout({
    ...o,
    title: 'Choose a new password',
    body: html`<h1>Choose a new password</h1>
${message(o.error)}
<p>For the account <strong id="reset-name">${o.name}</strong>. Setting it signs the account out everywhere.</p>
<form method="post" action="/reset-password" class="stack">
<input type="hidden" name="_csrf" value="${o.csrfToken}">
<input type="hidden" name="token" value="${o.token}">
<label>New password <small>at least 8 characters</small> <input name="password" type="password" autocomplete="new-password" required minlength="8" maxlength="256"></label>
<button type="submit">Set the password</button>
</form>`,
  });
}

export function passwordResetDonePage(o: Common): string {
  return layout({
    ...o,
    title: 'Password changed',
    body: html`<h1>Password changed</h1>
<p id="notice">Your new password is set, and every session of your account has been signed out.</p>
<p><a class="button" href="/signin">Sign in</a></p>`,
  });
}

/**
 * A usable verification or change link opened in a browser not signed in to its account: it proves
 * the mailbox, not who made the account, so it waits for a sign-in to that account (which comes
 * back here to use it). `signIn`: the sign-in page's address, with the way back.
 */
export function signInToConfirmPage(o: Common & { email: string; signIn: string }): string {
  return layout({
    ...o,
    title: 'Sign in to confirm this address',
    body: html`<h1>Sign in to confirm this address</h1>
<p id="notice">To confirm <strong id="email">${o.email}</strong>, sign in${o.user ? ' again' : ''} to the account it was sent for, in this browser; the link then does its work.</p>
<p><a class="button" id="forward" href="${o.signIn}">Sign in to confirm</a></p>
<p>If you did not create an account here, ignore the link: nothing changes without that sign-in.</p>`,
  });
}

export function emailLinkFollowedPage(o: Common & { kind: 'verified' | 'changed'; email: string; again?: boolean }): string {
  const text =
    o.kind === 'verified'
      ? html`${o.again ? 'This link has been used already, and your' : 'Your'} email address <strong id="email">${o.email}</strong> is verified.`
      : html`${o.again ? 'This link has been used already, and your' : 'Your'} account's email address is now <strong id="email">${o.email}</strong>, verified.`;
  return layout({
    ...o,
    title: o.kind === 'verified' ? 'Address verified' : 'Address changed',
    body: html`<h1>${o.kind === 'verified' ? 'Address verified' : 'Address changed'}</h1>
<p id="notice">${text}</p>
<p><a href="${o.user ? '/account' : '/signin'}">${o.user ? 'Back to your account' : 'Sign in'}</a></p>`,
  });
}

/**
 * An email link that cannot be used: why, and the way forward. A reset link leads to a new one;
 * a verification or change link to the account page, which sends one again (signed out, through
 * the sign-in page).
 */
export function emailLinkProblemPage(o: Common & { message: string; purpose: 'reset' | 'verify' }): string {
  const forward =
    o.purpose === 'reset'
      ? html`<a class="button" id="forward" href="/forgot-password">Ask for a new link</a>`
      : o.user
        ? html`<a class="button" id="forward" href="/account">Go to your account</a> (it sends a new link)`
        : html`<a class="button" id="forward" href="/signin?return_to=%2Faccount">Sign in to your account</a> (it sends a new link)`;
  return layout({
    ...o,
    title: 'This link cannot be used',
    body: html`<h1>This link cannot be used</h1>
<p class="error" id="error-message">${o.message}</p>
<p>${forward}</p>`,
  });
}

/** `returnTo`: where the page's Continue leads, or the account page. */
export function verificationSentPage(o: Common & { email: string; returnTo: LocalPath | undefined }): string {
  return layout({
    ...o,
    title: 'Check your mail',
    body: html`<h1>Check your mail</h1>
<p id="notice">A new verification link is on its way to <strong>${o.email}</strong>. It works once and for 24 hours.</p>
<p><a id="return" href="${o.returnTo ?? '/account'}">Continue</a> once you have followed it.</p>`,
  });
}

export function emailChangeRequestedPage(o: Common & { newEmail: string; currentEmail: string }): string {
  return layout({
    ...o,
    title: 'Confirm your new address',
    body: html`<h1>Confirm your new address</h1>
<p id="notice">We sent a link to <strong>${o.newEmail}</strong>. Your address changes when you follow it (within 24 hours); until then it stays <strong>${o.currentEmail}</strong>. We told ${o.currentEmail} about the request.</p>
<p><a href="/account">Back to your account</a></p>`,
  });
}

/** Why a change of address was refused: the reason, the address typed, and which field is wrong (none for too many tries). */
export interface EmailChangeRefusal {
  message: string;
  email: string;
  field?: 'email' | 'password';
}

/**
 * The account page's email section: the address, whether it is verified, resend, change. A
 * refused change shows its reason right after the form (resultSlot's alert region, which the
 * wrong field names in aria-describedby and focuses), with the typed address kept.
 */
export function accountEmailSection(o: { csrfToken: string; email: string; verified: boolean; refusal?: EmailChangeRefusal; confirmations: PageConfirmations }): SafeHtml {
  const wrong = (field: 'email' | 'password') =>
    o.refusal?.field === field ? html` aria-invalid="true" aria-describedby="change-email-result-error" autofocus` : '';
  return html`<section id="email-section" class="card">
<h2>Email address</h2>
<p><span id="email-address">${o.email}</span> <strong id="email-state" data-verified="${o.verified ? 'true' : 'false'}">${o.verified ? 'verified' : 'not verified'}</strong></p>
${
  o.verified
    ? ''
    : html`<p>Apps can see your address (the <code>email</code> scope) only once it is verified. Follow the link we mailed you, or have it sent again.</p>
<form method="post" action="/account/verification" class="inline"><input type="hidden" name="_csrf" value="${o.csrfToken}"><input type="hidden" name="return_to" value="/account"><button type="submit" id="resend-verification">Send the link again</button></form>`
}
<form method="post" action="/account/email" class="stack" id="change-email-form">
<h3>Change your address</h3>
<input type="hidden" name="_csrf" value="${o.csrfToken}">
<label>New email address <input name="email" type="email" id="new-email" autocomplete="email" required maxlength="254" value="${o.refusal?.email ?? ''}"${wrong('email')}></label>
${
  o.confirmations.password
    ? html`<label>Your password, to change the address <input name="password" type="password" id="change-email-password" autocomplete="current-password" required maxlength="256"${wrong('password')}></label>`
    : confirmFirstNote()
}
<button type="submit" id="change-email">Send a link to the new address</button>
</form>
${resultSlot('change-email-result', o.refusal && `Changing the address failed: ${o.refusal.message}`)}
</section>`;
}

/** On the consent page, when `email` is asked for but the user's address is not verified. */
export function consentEmailNotice(o: { csrfToken: string; returnTo: string }): SafeHtml {
  return html`<section id="email-unverified" class="card">
<p class="error">This app asks for your email address, and yours is not verified yet, so you cannot authorize it now.</p>
<p>Follow the link we mailed you, then come back to this page.</p>
<form method="post" action="/account/verification" class="inline"><input type="hidden" name="_csrf" value="${o.csrfToken}"><input type="hidden" name="return_to" value="${o.returnTo}"><button type="submit" id="resend-verification">Send the link again</button></form>
</section>`;
}
