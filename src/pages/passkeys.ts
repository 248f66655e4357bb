/**
 * The account page's "Passkeys" section (part of its security area, after "Change password"):
 * the account's passkeys, filled in and managed by assets/passkeys.js through the JSON API.
 */
import { html, type SafeHtml } from './html.js';
import { resultSlot } from './result-slot.js';

/** The scripts the section needs, in order: the vendored WebAuthn library, then its own. */
export const PASSKEY_SCRIPTS = ['simplewebauthn-browser.js', 'passkeys.js'];

export function passkeysSection(): SafeHtml {
  return html`<section id="passkeys" class="card"><h2>Passkeys</h2>
<p>A passkey signs you in with this device's screen lock, fingerprint or face, or with a security key, instead of your password. Nobody can guess or phish it.</p>
<ul id="passkey-list"><li>Loading…</li></ul>
<button type="button" id="add-passkey">Add a passkey</button>
${resultSlot('passkeys-result')}
<p id="passkey-unsupported" hidden><small>This browser cannot use passkeys.</small></p>
</section>`;
}
