/**
 * The account page's "Passkeys" section (part of its security area, after "Change password"):
 * the account's passkeys, filled in and managed by scripts/account-passkeys.ts through the JSON API.
 */
import { html, type SafeHtml } from '../domain/html.js';
import { resultSlot } from './result-slot.js';
import { ids } from './ids.js';

export function passkeysSection(): SafeHtml {
  return html`<section id="passkeys" class="card"><h2>Passkeys</h2>
<p>A passkey signs you in with this device's screen lock, fingerprint or face, or with a security key, instead of your password. Nobody can guess or phish it.</p>
<ul id="${ids.passkeys.list}"><li>Loading…</li></ul>
<form id="${ids.passkeys.addForm}" class="stack">
<label>Your password, to add one <input type="password" id="${ids.passkeys.addPassword}" name="password" autocomplete="current-password" required maxlength="256"></label>
${resultSlot(ids.passkeys.addResult)}
<button type="submit" id="add-passkey">Add a passkey</button>
<button type="button" id="${ids.passkeys.addWithPasskey}" class="secondary" hidden>Confirm with a passkey instead</button>
</form>
${resultSlot(ids.passkeys.result)}
<p id="${ids.passkeys.unsupported}" hidden><small>This browser cannot use passkeys.</small></p>
</section>`;
}
