/**
 * The account page's "in control of your account" sections: connected apps, password, passkeys
 * (src/pages/passkeys.ts), sessions,
 * your data and account deletion. Kept apart from the profile part of the page (pages.ts) so each
 * can change without touching the other; their script is assets/account-control.js. What each
 * scope lets an app do is the consent page's SCOPE_DESCRIPTIONS, rendered into a <template>.
 */
import { SCOPE_DESCRIPTIONS, SCOPES } from '../oauth/scopes.js';
import { html, type SafeHtml } from '../domain/html.js';
import { confirmationSection, passwordField, type PageConfirmations } from './confirmation.js';
import { passkeysSection } from './passkeys.js';
import { resultSlot } from './result-slot.js';
import { ids } from './ids.js';

/**
 * `afterPassword`: the sections that follow "Change password" and "Passkeys" in the security area
 * (the authenticator app, linked accounts); `confirmations`: how the account confirms who it is
 * (src/pages/confirmation.ts): an account without a password sets a first one instead of changing it.
 */
export function accountControlSections(o: { userName: string; afterPassword?: SafeHtml; confirmations: PageConfirmations }): SafeHtml {
  return html`<section id="connected-apps" class="card"><h2>Connected apps</h2>
<p>Apps you let use your account. Revoking access signs the app out at once; it has to ask again next time.</p>
<div id="${ids.control.grants}"><p>Loading…</p></div>
<template id="${ids.control.scopeDescriptions}">${SCOPES.map((s) => html`<li data-scope="${s}">${SCOPE_DESCRIPTIONS[s]}</li>`)}</template>
${resultSlot(ids.control.grantsResult)}</section>
${confirmationSection(o.confirmations)}
${o.confirmations.password ? changePasswordSection() : firstPasswordSection()}
${passkeysSection(o.confirmations)}
${o.afterPassword ?? ''}
<section id="sessions-section" class="card"><h2>Where you are signed in</h2>
<ul id="${ids.control.sessions}"><li>Loading…</li></ul>
<button type="button" id="${ids.control.signOutEverywhere}" class="secondary">Sign out everywhere</button>
${resultSlot(ids.control.sessionsResult)}</section>
<section id="your-data" class="card"><h2>Your data</h2>
<p><a class="button" id="export" href="/api/account/export" download>Download my data</a> <small>one JSON file: profile, email, apps, games, connected apps, sessions and sign-ins</small></p></section>
<section id="delete-account" class="card"><h2>Delete account</h2>
<p>This deletes your account, your apps and games and your profile picture for good. Your name will not be given to anyone else.</p>
<form id="${ids.control.deleteForm}" class="stack">
${passwordField(o.confirmations, 'Your password, to delete the account', ids.control.deletePassword)}
<label><span>Type your name, <strong>${o.userName}</strong>, to confirm</span> <input id="${ids.control.deleteConfirm}" name="confirm" autocomplete="off" required maxlength="64"></label>
<button type="submit" id="delete-account-button" class="danger">Delete my account</button>
</form>
${resultSlot(ids.control.deleteResult)}</section>`;
}

function changePasswordSection(): SafeHtml {
  return html`<section id="password" class="card"><h2>Change password</h2>
<form id="${ids.control.passwordForm}" class="stack">
<label>Current password <input type="password" id="${ids.control.currentPassword}" name="current_password" autocomplete="current-password" required maxlength="256"></label>
<label>New password <small>at least 8 characters</small> <input type="password" id="${ids.control.newPassword}" name="new_password" autocomplete="new-password" required minlength="8" maxlength="256"></label>
<button type="submit" id="change-password">Change password</button>
<small>Every other browser signed in to your account is signed out; this one stays signed in.</small>
</form>
${resultSlot(ids.control.passwordResult)}</section>`;
}

/** An account without a password (made through an upstream) sets a first one, once it confirmed who it is. */
function firstPasswordSection(): SafeHtml {
  return html`<section id="password" class="card"><h2>Set a password</h2>
<p>Your account has no password: you sign in through an account linked to it, or with a passkey. With a password, your name and that password sign in too.</p>
<form id="${ids.control.firstPasswordForm}" class="stack">
<p>Confirm it is you first, in <a href="#${ids.confirmation.section}">Confirm it is you</a>.</p>
<label>New password <small>at least 8 characters</small> <input type="password" id="${ids.control.firstPassword}" name="new_password" autocomplete="new-password" required minlength="8" maxlength="256"></label>
<button type="submit" id="set-first-password">Set a password</button>
</form>
${resultSlot(ids.control.firstPasswordResult)}</section>`;
}
