/**
 * The authenticator app: its part of the account page's security sections (script:
 * assets/authenticator.js) and the second step of sign-in (docs/account.md#authenticator-app-and-recovery-codes).
 */
import { html, type SafeHtml } from '../domain/html.js';
import { layout, type PageUser } from './html.js';

/** The account page's "Authenticator app" section; `enabled` as the page is served (the script takes it from there). */
export function authenticatorSection(o: { enabled: boolean; recoveryCodesLeft: number }): SafeHtml {
  return html`<section id="authenticator" class="card"><h2>Authenticator app</h2>
<div id="totp-off"${o.enabled ? html` hidden` : ''}>
<p>An authenticator app on your phone makes a new 6-digit code every 30 seconds. Once it is switched on, signing in asks for a code after your password, so a stolen password alone is not enough.</p>
<form id="totp-start-form" class="stack">
<label>Your password, to set it up <input type="password" id="totp-start-password" name="password" autocomplete="current-password" required maxlength="256" aria-describedby="totp-start-error"></label>
<p id="totp-start-error" class="error" role="alert"></p>
<button type="submit" id="totp-start">Set up an authenticator app</button>
<small>Switching it on signs you out on every other device and browser: they were signed in without a code.</small>
</form>
<div id="totp-setup" hidden>
<p>Scan this QR code with the app, or add the address below to it by hand.</p>
<p><img id="totp-qr" alt="QR code of the authenticator app address shown below" width="200" height="200"></p>
<p><code id="totp-uri"></code></p>
<form id="totp-confirm-form" class="stack">
<label>Code the app shows now <input id="totp-code" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="64" aria-describedby="totp-error"></label>
<p id="totp-error" class="error" role="alert"></p>
<button type="submit" id="totp-confirm">Switch on</button>
</form>
</div>
</div>
<div id="totp-on"${o.enabled ? '' : html` hidden`}>
<p>Switched on: signing in asks for a code of the app after your password. Unused recovery codes: <strong id="recovery-codes-left">${o.recoveryCodesLeft}</strong>.</p>
<p id="totp-ended-sessions" role="status" hidden></p>
<div id="recovery-codes-box" hidden>
<p>Your recovery codes. Each works once, in place of a code of the app, should you lose your phone. Keep them somewhere safe: they are shown only now.</p>
<ul id="recovery-codes" class="codes"></ul>
</div>
<form id="recovery-form" class="stack">
<label>Password <input type="password" id="recovery-password" name="password" autocomplete="current-password" required maxlength="256" aria-describedby="recovery-error"></label>
<p id="recovery-error" class="error" role="alert"></p>
<button type="submit" id="recovery-new" class="secondary">Make new recovery codes</button>
<small>The codes you have now stop working.</small>
</form>
<form id="totp-off-form" class="stack">
<label>Password <input type="password" id="totp-off-password" name="password" autocomplete="current-password" required maxlength="256" aria-describedby="totp-off-error"></label>
<p id="totp-off-error" class="error" role="alert"></p>
<button type="submit" id="totp-disable" class="danger">Switch the authenticator app off</button>
</form>
</div>
<p><button type="button" id="totp-passkey-confirm" class="secondary" hidden>Confirm with a passkey instead of your password</button></p>
<p id="totp-passkey-status" role="alert"></p>
</section>`;
}

/** The second step of sign-in: a code of the authenticator app, or a recovery code. */
export function signInSecondStepPage(o: { user: PageUser | undefined; csrfToken: string; error?: string; typed?: string }): string {
  return layout({
    ...o,
    title: 'Sign in: code',
    body: html`<h1>Sign in: one more step</h1>
<p>Your password was right. Type the 6-digit code your authenticator app shows now, or one of your recovery codes.</p>
<form method="post" action="/signin/otp" class="stack">
<input type="hidden" name="_csrf" value="${o.csrfToken}">
<label>Code <input id="otp" name="otp" autocomplete="one-time-code" autocapitalize="none" spellcheck="false" required maxlength="64" autofocus value="${o.typed ?? ''}"${o.error ? html` aria-invalid="true" aria-describedby="error-message"` : ''}></label>
${o.error ? html`<p class="error" id="error-message" role="alert">${o.error}</p>` : ''}
<button type="submit">Sign in</button>
</form>
<p><a href="/signin">Start over</a></p>`,
  });
}
