/**
 * The account page's "Passkeys" section (part of its security area, after "Change password"):
 * the account's passkeys, filled in and managed by assets/passkeys.js through the JSON API.
 */
import { html, type SafeHtml } from '../domain/html.js';
import { resultSlot } from './result-slot.js';

/** The scripts the section needs, in order: the vendored WebAuthn library, then its own. */
export const PASSKEY_SCRIPTS = ['simplewebauthn-browser.js', 'passkeys.js'];

export function passkeysSection(): SafeHtml {
  return html`<section id="passkeys" class="card"><h2>Passkeys</h2>
<p>A passkey signs you in with this device's screen lock, fingerprint or face, or with a security key, instead of your password. Nobody can guess or phish it.</p>
<ul id="passkey-list"><li>Loading…</li></ul>
<form id="add-passkey-form" class="stack">
<label>Your password, to add one <input type="password" id="add-passkey-password" name="password" autocomplete="current-password" required maxlength="256" aria-describedby="add-passkey-error"></label>
<p id="add-passkey-error" class="error" role="alert"></p>
<button type="submit" id="add-passkey">Add a passkey</button>
<button type="button" id="add-passkey-with-passkey" class="secondary" hidden>Confirm with a passkey instead</button>
</form>
${resultSlot('passkeys-result')}
<p id="passkey-unsupported" hidden><small>This browser cannot use passkeys.</small></p>
</section>`;
}
