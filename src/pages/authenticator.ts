/**
 * The authenticator app: its part of the account page's security sections (script:
 * scripts/account-authenticator.ts) and the second step of sign-in (docs/account.md#authenticator-app-and-recovery-codes).
 */
import { html, type SafeHtml } from '../domain/html.js';
import { layout, type PageUser } from './html.js';
import { ids } from './ids.js';
import { passwordField, type PageConfirmations } from './confirmation.js';
import { resultSlot } from './result-slot.js';

/**
 * The account page's "Authenticator app" section; `enabled` as the page is served (the script takes
 * it from there); `confirmations`: an account without a password is asked for none.
 */
export function authenticatorSection(o: { enabled: boolean; recoveryCodesLeft: number; confirmations: PageConfirmations }): SafeHtml {
  const c = o.confirmations;
  return html`<section id="authenticator" class="card"><h2>Authenticator app</h2>
<div id="${ids.authenticator.off}"${o.enabled ? html` hidden` : ''}>
<p>An authenticator app on your phone makes a new 6-digit code every 30 seconds. Once it is switched on, signing in asks for a code after your password, so a stolen password alone is not enough.</p>
<form id="${ids.authenticator.startForm}" class="stack">
${passwordField(c, 'Your password, to set it up', ids.authenticator.startPassword)}
<button type="submit" id="totp-start">Set up an authenticator app</button>
<small>Switching it on signs you out on every other device and browser: they were signed in without a code.</small>
</form>
${resultSlot(ids.authenticator.startResult)}
<div id="${ids.authenticator.setup}" hidden>
<p>Scan this QR code with the app. An app that asks for a setup key instead takes this one (time-based, 6 digits, every 30 seconds):</p>
<p><img id="${ids.authenticator.qr}" alt="QR code of the authenticator app address shown below" width="200" height="200"></p>
<p>Setup key <code id="${ids.authenticator.setupKey}" class="setup-key"></code></p>
<details><summary>The whole address, for apps that take one</summary><p><code id="${ids.authenticator.uri}"></code></p></details>
<form id="${ids.authenticator.confirmForm}" class="stack">
<label>Code the app shows now <input id="${ids.authenticator.code}" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="64"></label>
<button type="submit" id="totp-confirm">Switch on</button>
</form>
${resultSlot(ids.authenticator.confirmResult)}
</div>
</div>
<div id="${ids.authenticator.on}"${o.enabled ? '' : html` hidden`}>
<p>Switched on: signing in asks for a code of the app after your password. Unused recovery codes: <strong id="${ids.authenticator.recoveryCodesLeft}">${o.recoveryCodesLeft}</strong>.</p>
<p id="${ids.authenticator.endedSessions}" role="status" hidden></p>
<div id="${ids.authenticator.recoveryCodesBox}" hidden>
<p>Your recovery codes. Each works once, in place of a code of the app, should you lose your phone. Keep them somewhere safe: they are shown only now.</p>
<ul id="${ids.authenticator.recoveryCodes}" class="codes"></ul>
<div class="button-row"><button type="button" id="${ids.authenticator.copyRecoveryCodes}" class="secondary">Copy the codes</button> <a class="button secondary" id="${ids.authenticator.downloadRecoveryCodes}" download="recovery-codes.txt" href="#">Download the codes</a></div>
</div>
<form id="${ids.authenticator.recoveryForm}" class="stack">
${passwordField(c, 'Your password, to make new recovery codes', ids.authenticator.recoveryPassword)}
<button type="submit" id="recovery-new" class="secondary">Make new recovery codes</button>
<small>The codes you have now stop working.</small>
</form>
${resultSlot(ids.authenticator.recoveryResult)}
<form id="${ids.authenticator.offForm}" class="stack">
${passwordField(c, 'Your password, to switch the app off', ids.authenticator.offPassword)}
<button type="submit" id="totp-disable" class="danger">Switch the authenticator app off</button>
</form>
${resultSlot(ids.authenticator.offResult)}
</div>
${
    c.password
      ? html`<p><button type="button" id="${ids.authenticator.passkeyConfirm}" class="secondary" hidden>Confirm with a passkey instead of your password</button></p>
${resultSlot(ids.authenticator.passkeyResult)}`
      : ''
  }
</section>`;
}

/**
 * The second step of sign-in: a code of the authenticator app, or a recovery code. `seedUnreadable`:
 * why the app's codes cannot be checked any more and what to do (SeedUnreadable's message); the
 * same form then asks for a recovery code.
 */
export function signInSecondStepPage(o: { user: PageUser | undefined; csrfToken: string; error?: string; typed?: string; seedUnreadable?: string }): string {
  const error = o.error ? html`<p class="error" id="error-message" role="alert">${o.error}</p>` : '';
  const invalid = o.error ? html` aria-invalid="true" aria-describedby="error-message"` : '';
  return layout({
    ...o,
    title: 'Sign in: code',
    body: html`<h1>Sign in: one more step</h1>
${
  o.seedUnreadable !== undefined
    ? html`<p class="error" id="error-message" role="alert">${o.seedUnreadable}</p>
<form method="post" action="/signin/otp" class="stack">
<input type="hidden" name="_csrf" value="${o.csrfToken}">
<label>Recovery code <input id="otp" name="otp" autocomplete="off" autocapitalize="none" spellcheck="false" required maxlength="64" autofocus aria-describedby="error-message"></label>
<button type="submit">Sign in</button>
</form>`
    : html`<p>Your password was right. Type the 6-digit code your authenticator app shows now, or one of your recovery codes.</p>
<form method="post" action="/signin/otp" class="stack">
<input type="hidden" name="_csrf" value="${o.csrfToken}">
<label>Code <input id="otp" name="otp" autocomplete="one-time-code" autocapitalize="none" spellcheck="false" required maxlength="64" autofocus value="${o.typed ?? ''}"${invalid}></label>
${error}
<button type="submit">Sign in</button>
</form>`
}
<p><a href="/signin">Start over</a></p>`,
  });
}
